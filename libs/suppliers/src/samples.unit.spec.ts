import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { routeInput } from './application/providers/route-input';
import { parseChannels } from './supplier-settings';

/** The operator's samples in docs/samples are real configuration: they must load as they are. */
describe('docs/samples', () => {
  const root = join(__dirname, '..', '..', '..', 'docs', 'samples');
  const channels = parseChannels(readFileSync(join(root, 'supplier-channels.json'), 'utf8'), 'SUPPLIER_CHANNELS_FILE');
  const catalogue = Catalogue.fromText(readFileSync(join(root, 'catalogue-providers.json'), 'utf8'));

  it('configure one channel of each provider type', () => {
    expect([...channels.providers.values()].map((c) => c.type).sort()).toEqual(['ark', 'dashscope', 'fal', 'openai', 'replicate']);
  });

  it('route every model of the sample catalogue to configured channels only', () => {
    const routes = catalogue.models().flatMap((m) => m.routes ?? []);
    expect(routes.length).toBeGreaterThanOrEqual(catalogue.models().length);
    for (const r of routes) expect(channels.providers.has(r.channel)).toBe(true);
  });

  it('orders a model\'s routes by priority (the fallback comes second)', () => {
    expect(catalogue.model('flux-schnell')!.routes!.map((r) => r.channel)).toEqual(['replicate', 'fal']);
  });

  it('is not available before a route probe passed', () => {
    expect(catalogue.isAvailable('flux-schnell')).toBe(false);
    catalogue.setVerified('flux-schnell', true);
    expect(catalogue.isAvailable('flux-schnell')).toBe(true);
  });

  it('map the caller\'s parameters to each provider\'s request with the routes\' input maps', async () => {
    const [replicate, fal] = catalogue.model('flux-schnell')!.routes!;
    const params = { prompt: 'a red fox', aspect_ratio: '16:9', count: 2 };
    expect(await routeInput(replicate!, 'replicate', params, params)).toEqual({ prompt: 'a red fox', aspect_ratio: '16:9', num_outputs: 2, output_format: 'png' });
    expect(await routeInput(fal!, 'fal', params, params)).toEqual({ prompt: 'a red fox', image_size: 'landscape_16_9', num_images: 2, output_format: 'png' });
    const seedance = catalogue.model('seedance-1-pro')!.routes![0]!;
    const video = { prompt: 'waves', duration: 5, resolution: '720p', asset_ids: ['https://gensvc.example/v1/assets/ast_1/content?sig=x'] };
    expect(await routeInput(seedance, 'ark', video, video)).toEqual({
      content: [
        { type: 'text', text: 'waves --resolution 720p --duration 5' },
        { type: 'image_url', image_url: { url: 'https://gensvc.example/v1/assets/ast_1/content?sig=x' } },
      ],
    });
    const wanx = catalogue.model('wanx-t2i')!.routes![0]!;
    expect(await routeInput(wanx, 'dashscope', { prompt: 'p', aspect_ratio: '1:1', count: 1 }, {})).toEqual({ input: { prompt: 'p' }, parameters: { size: '1024*1024', n: 1 } });
  });
});

describe('catalogue routes', () => {
  const base = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'samples', 'catalogue-providers.json'), 'utf8')) as { models: Record<string, unknown>[] };
  const withModel = (patch: Record<string, unknown>) => JSON.stringify({ ...base, models: [{ ...base.models[0], ...patch }] });

  it('refuse an input_map that is not JSONata, naming the model and the route', () => {
    expect(() => Catalogue.fromText(withModel({ routes: [{ channel: 'replicate', supplier_model: 'a/b', input_map: '{ "prompt": input.prompt' }] }))).toThrow(
      /model flux-schnell routes\[0\]\.input_map is not a JSONata expression/,
    );
  });

  it('refuse a model with both a supplier and routes, or with neither', () => {
    expect(() => Catalogue.fromText(withModel({ supplier: 'local', supplier_model: 'x' }))).toThrow(/flux-schnell has routes, so it takes no supplier/);
    expect(() => Catalogue.fromText(withModel({ routes: undefined }))).toThrow(/flux-schnell needs either supplier and supplier_model, or routes/);
  });

  it('without an input_map send the parameters as they are (DashScope: as input)', async () => {
    const route = { channel: 'x', supplier_model: 'm' };
    expect(await routeInput(route, 'replicate', { prompt: 'p' }, {})).toEqual({ prompt: 'p' });
    expect(await routeInput(route, 'dashscope', { prompt: 'p' }, {})).toEqual({ input: { prompt: 'p' } });
  });
});
