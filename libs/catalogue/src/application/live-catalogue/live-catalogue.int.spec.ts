import { Logger } from '@nestjs/common';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixedClock } from '@gensvc/kernel';
import { SqliteEventStore } from '@gensvc/storage';
import { CatalogueFileError, type CatalogueFile } from '../../domain/catalogue-file';
import { defaultCatalogueFile, type Catalogue } from '../../domain/catalogue';
import { CATALOGUE_STREAM_NAME } from '../catalogue-stream';
import { DiffCatalogueHandler } from '../diff-catalogue/diff-catalogue.handler';
import { PublishCatalogueHandler } from '../publish-catalogue/publish-catalogue.handler';
import { ShowCatalogueHandler } from '../show-catalogue/show-catalogue.handler';
import { CatalogueFollower } from './catalogue-follower';
import { openCatalogue } from './open-catalogue';

type MutableFile = CatalogueFile & { models: { id: string; available: boolean; pricing: { prices: { unit_price: string }[] }[] }[] };
const base = (): MutableFile => JSON.parse(readFileSync(defaultCatalogueFile(), 'utf8'));
/** The default catalogue with the text writer's price changed. */
function withWriterPrice(price: string): MutableFile {
  const f = base();
  f.models[0]!.pricing[0]!.prices[0]!.unit_price = price;
  return f;
}

/** Two processes sharing one data directory: each with its own event store connection and its own catalogue. */
describe('the live catalogue', () => {
  let dir: string;
  let stores: SqliteEventStore[];
  const clock = new FixedClock(new Date('2026-11-20T08:00:00.000Z'));
  const store = () => {
    const s = new SqliteEventStore(join(dir, 'events.db'));
    stores.push(s);
    return s;
  };
  const writeFile = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(content, null, 2));
    return path;
  };
  const now = () => ({ now: clock.now() });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gensvc-catalogue-'));
    stores = [];
    Logger.overrideLogger(false);
  });
  afterEach(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  /** A process: its catalogue, the follower that keeps it current, and the operator's use cases on its store. */
  async function process(startFile: string) {
    const events = store();
    const catalogue: Catalogue = await openCatalogue(events, clock, startFile);
    const follower = new CatalogueFollower(catalogue, events);
    return { events, catalogue, follower, publish: new PublishCatalogueHandler(events, follower), show: new ShowCatalogueHandler(events), diff: new DiffCatalogueHandler(events) };
  }

  it('publishes the start file as version 1 at the first start, and nothing at the next', async () => {
    const start = writeFile('start.json', base());
    const a = await process(start);
    const b = await process(start);
    expect([a.catalogue.version, b.catalogue.version]).toEqual([1, 1]);
    expect(await a.events.readStream(CATALOGUE_STREAM_NAME)).toHaveLength(1);
    const [published] = await a.events.readStream(CATALOGUE_STREAM_NAME);
    expect(published!.metadata.actor).toBe('system:catalogue-start');
    expect(await a.show.execute()).toEqual({ version: 1, published_at: '2026-11-20T08:00:00.000Z', catalogue: base() });
  });

  it('serves a version published by another process once its follower reads it, and tells the listeners', async () => {
    const start = writeFile('start.json', base());
    const server = await process(start);
    const admin = await process(start);
    const told: number[] = [];
    server.catalogue.onChange((c) => told.push(c.version));
    const oldVersion = server.catalogue.priceVersionOf('text-writer-lite');
    const result = await admin.publish.execute({ type: 'PublishCatalogue', data: { file: JSON.stringify(withWriterPrice('0.050000')) }, metadata: now() });
    expect(result).toEqual({
      version: 2,
      changes: [
        { model: 'text-writer-lite', change: 'price', capability: 'text.generate', parameters: {}, from: '0.020000', to: '0.050000' },
        { model: 'text-writer-lite', change: 'price_version', from: oldVersion, to: expect.stringMatching(/^pv-/) },
      ],
    });
    // The publishing process serves it at once, the other after its next read.
    expect(admin.catalogue.version).toBe(2);
    expect(server.catalogue.version).toBe(1);
    await server.follower.catchUp();
    expect(server.catalogue.version).toBe(2);
    expect(server.catalogue.price('text-writer-lite', 'text.generate', {}).unitPrice).toBe(50_000n);
    expect(server.catalogue.priceVersionOf('text-writer-lite')).not.toBe(oldVersion);
    expect(server.catalogue.priceVersionOf('image-studio-v2')).toBe(admin.catalogue.priceVersionOf('image-studio-v2'));
    expect(told).toEqual([2]);
  });

  it('follows on its own timer once the application started', async () => {
    const start = writeFile('start.json', base());
    const server = await process(start);
    const admin = await process(start);
    const served = new Promise<number>((resolve) => server.catalogue.onChange((c) => resolve(c.version)));
    server.follower.onApplicationBootstrap();
    try {
      await admin.publish.execute({ type: 'PublishCatalogue', data: { file: withWriterPrice('0.070000') }, metadata: now() });
      expect(await served).toBe(2);
    } finally {
      server.follower.onApplicationShutdown();
    }
  });

  it('refuses a file that does not validate, naming the model and the field, and stores nothing', async () => {
    const admin = await process(writeFile('start.json', base()));
    const bad = withWriterPrice('2');
    let refusal: unknown;
    try {
      await admin.publish.execute({ type: 'PublishCatalogue', data: { file: bad }, metadata: now() });
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(CatalogueFileError);
    expect((refusal as CatalogueFileError).details).toEqual({ model: 'text-writer-lite', field: 'pricing[0].prices[0].unit_price' });
    await expect(admin.diff.execute({ file: bad })).rejects.toBeInstanceOf(CatalogueFileError);
    const failing = () => {
      throw new CatalogueFileError('image-studio-v2', 'supplier', 'supplier names channel "nowhere", which is not configured');
    };
    await expect(admin.publish.execute({ type: 'PublishCatalogue', data: { file: withWriterPrice('0.090000') }, metadata: now() }, { check: failing })).rejects.toThrow(/nowhere/);
    expect(await admin.events.readStream(CATALOGUE_STREAM_NAME)).toHaveLength(1);
    expect(admin.catalogue.version).toBe(1);
  });

  it('diffs a file against the version in service without publishing; the same file again changes nothing', async () => {
    const admin = await process(writeFile('start.json', base()));
    const next = withWriterPrice('0.030000');
    next.models.splice(1, 1);
    next.models[1]!.available = false;
    expect(await admin.diff.execute({ file: JSON.stringify(next) })).toEqual({
      changes: [
        { model: 'text-writer-lite', change: 'price', capability: 'text.generate', parameters: {}, from: '0.020000', to: '0.030000' },
        { model: 'text-writer-lite', change: 'price_version', from: expect.any(String), to: expect.any(String) },
        { model: 'speech-tts-std', change: 'available', from: true, to: false },
        { model: 'image-studio-v2', change: 'removed' },
      ],
    });
    expect(await admin.events.readStream(CATALOGUE_STREAM_NAME)).toHaveLength(1);
    expect(await admin.diff.execute({ file: base() })).toEqual({ changes: [] });
    expect(await admin.publish.execute({ type: 'PublishCatalogue', data: { file: base() }, metadata: now() })).toEqual({ version: 1, changes: [] });
  });

  it('shows an earlier version by number, and refuses one that was never published', async () => {
    const admin = await process(writeFile('start.json', base()));
    await admin.publish.execute({ type: 'PublishCatalogue', data: { file: withWriterPrice('0.040000') }, metadata: now() });
    expect((await admin.show.execute({ version: 1 })).catalogue).toEqual(base());
    expect((await admin.show.execute()).catalogue).toEqual(withWriterPrice('0.040000'));
    await expect(admin.show.execute({ version: 3 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  describe('a later start with another start file', () => {
    it('publishes it as a new version when the version in service came from a start, and says so', async () => {
      await process(writeFile('a.json', base()));
      const warn = jest.spyOn(Logger.prototype, 'warn');
      const next = await process(writeFile('b.json', withWriterPrice('0.060000')));
      expect(next.catalogue.version).toBe(2);
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/b\.json changed since a start last published it: published as catalogue version 2 \(2 changes/));
    });

    it('keeps the operator\'s version and says why, and a restart with the unchanged file keeps it silently', async () => {
      const a = writeFile('a.json', base());
      const first = await process(a);
      await first.publish.execute({ type: 'PublishCatalogue', data: { file: withWriterPrice('0.080000') }, metadata: now() });
      const warn = jest.spyOn(Logger.prototype, 'warn');
      const other = await process(writeFile('c.json', withWriterPrice('0.010000')));
      expect(other.catalogue.version).toBe(2);
      expect(other.catalogue.price('text-writer-lite', 'text.generate', {}).unitPrice).toBe(80_000n);
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/c\.json changed since a start last published it, but the operator published version 2 since; serving version 2/));
      warn.mockClear();
      const again = await process(a);
      expect(again.catalogue.version).toBe(2);
      expect(warn).not.toHaveBeenCalled();
    });

    it('stops the start naming the variable when the start file does not validate', async () => {
      const bad = writeFile('bad.json', withWriterPrice('x'));
      await expect(openCatalogue(store(), clock, bad)).rejects.toThrow(/CATALOGUE_FILE .*bad\.json does not validate: catalogue: model text-writer-lite pricing\[0\]\.prices\[0\]\.unit_price/);
      await expect(openCatalogue(store(), clock, join(dir, 'missing.json'))).rejects.toThrow(/CATALOGUE_FILE cannot be read/);
    });
  });
});
