import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import type { CatalogueFile, CatalogueFileModel } from './catalogue-file';
import { catalogueDigest, priceVersionOf } from './catalogue-file';
import { catalogueVersionDecider, type CatalogueVersionEvent } from './catalogue-versions';

const spec = DeciderSpecification.for(catalogueVersionDecider);
const T1 = new Date('2026-11-01T10:00:00.000Z');
const T2 = new Date('2026-11-02T10:00:00.000Z');
const T3 = new Date('2026-11-03T10:00:00.000Z');

const model = (id: string, price: string, extra: Partial<CatalogueFileModel> = {}): CatalogueFileModel => ({
  id,
  name: id,
  modality: 'text',
  capabilities: ['text.generate'],
  available: true,
  supplier: 'local',
  supplier_model: `local-${id}`,
  resolved_model: `${id}-1`,
  input_schema: { type: 'object', properties: { prompt: { type: 'string' } } },
  pricing: [{ capability: 'text.generate', unit: 'request', quantity: { kind: 'one' }, prices: [{ when: {}, unit_price: price }] }],
  ...extra,
});
const file = (version: string, ...models: CatalogueFileModel[]): CatalogueFile => ({ version, currency: 'CNY', models });

const A = file('a', model('writer', '0.020000'), model('painter', '0.080000'));
/** A with the writer's price changed. */
const B = file('b', model('writer', '0.030000'), model('painter', '0.080000'));
/** B without the painter. */
const C = file('c', model('writer', '0.030000'));
const D = file('d', model('writer', '0.050000'));

const pv = (m: CatalogueFileModel) => priceVersionOf('CNY', m);

function published(version: number, catalogue: CatalogueFile, source: 'operator' | 'start', at: Date, changes: CatalogueVersionEvent['data']['changes']): CatalogueVersionEvent {
  return {
    type: 'CataloguePublished',
    data: {
      version,
      catalogue,
      digest: catalogueDigest(catalogue),
      price_versions: Object.fromEntries(catalogue.models.map((m) => [m.id, pv(m)])),
      changes,
      source,
      ...(source === 'start' ? { file: '/etc/gensvc/catalogue.json' } : {}),
      published_at: at.toISOString(),
    },
  };
}

const v1 = published(1, A, 'start', T1, [
  { model: 'writer', change: 'added', price_version: pv(A.models[0]!) },
  { model: 'painter', change: 'added', price_version: pv(A.models[1]!) },
]);
const v2ByOperator = published(2, B, 'operator', T2, [
  { model: 'writer', change: 'price', capability: 'text.generate', parameters: {}, from: '0.020000', to: '0.030000' },
  { model: 'writer', change: 'price_version', from: pv(A.models[0]!), to: pv(B.models[0]!) },
]);

const publish = (catalogue: CatalogueFile, now = T2) => ({ type: 'PublishCatalogue' as const, data: { catalogue }, metadata: { now } });
const start = (catalogue: CatalogueFile, now = T3) => ({ type: 'PublishStartFile' as const, data: { catalogue, file: '/etc/gensvc/catalogue.json' }, metadata: { now } });

describe('catalogue version decider', () => {
  it('publishes the start file as version 1 when nothing is published, every model added', () => spec.given([]).when(start(A, T1)).then([v1]));

  it('publishes an operator\'s file as the next version with its changes and price versions', () => spec.given([v1]).when(publish(B)).then([v2ByOperator]));

  it('gives a new price version only to the model whose price changed', () =>
    spec
      .given([v1])
      .when(publish(B))
      .thenReturns(([e]) => {
        expect(e!.data.price_versions.writer).not.toBe(v1.data.price_versions.writer);
        expect(e!.data.price_versions.painter).toBe(v1.data.price_versions.painter);
      }));

  it('names a removed model and a price that is new', () => {
    const withTwoPrices = file('e', model('writer', '0.030000', {
      pricing: [{ capability: 'text.generate', unit: 'request', quantity: { kind: 'one' }, prices: [{ when: {}, unit_price: '0.030000' }, { when: { long: true }, unit_price: '0.090000' }] }],
    }));
    spec.given([v1, v2ByOperator]).when(publish(C, T3)).then([published(3, C, 'operator', T3, [{ model: 'painter', change: 'removed' }])]);
    spec
      .given([v1, v2ByOperator])
      .when(publish(withTwoPrices, T3))
      .thenReturns(([e]) =>
        expect(e!.data.changes).toEqual([
          { model: 'writer', change: 'price', capability: 'text.generate', parameters: { long: true }, from: null, to: '0.090000' },
          { model: 'writer', change: 'price_version', from: pv(B.models[0]!), to: pv(withTwoPrices.models[0]!) },
          { model: 'painter', change: 'removed' },
        ]),
      );
  });

  it('publishing the content in service again changes nothing (key order and whitespace do not count)', () => {
    const reordered = JSON.parse(JSON.stringify({ models: B.models, currency: 'CNY', version: 'b' })) as CatalogueFile;
    spec.given([v1, v2ByOperator]).when(publish(reordered, T3)).then([]);
  });

  describe('a start with its start file', () => {
    it('changes nothing when the file is the catalogue in service', () => spec.given([v1]).when(start(A)).then([]));

    it('changes nothing when the file is unchanged since the start published it, so the operator\'s version stands', () =>
      spec.given([v1, v2ByOperator]).when(start(A)).then([]));

    it('publishes a changed file as a new version when the version in service came from a start', () =>
      spec.given([v1]).when(start(C)).then([published(2, C, 'start', T3, [
        { model: 'writer', change: 'price', capability: 'text.generate', parameters: {}, from: '0.020000', to: '0.030000' },
        { model: 'writer', change: 'price_version', from: pv(A.models[0]!), to: pv(C.models[0]!) },
        { model: 'painter', change: 'removed' },
      ])]));

    it('refuses a changed file when the operator published since, saying which version it keeps', () => {
      spec.given([v1, v2ByOperator]).when(start(D)).thenThrows('CONFLICT');
      const state = [v1, v2ByOperator].reduce(catalogueVersionDecider.evolve, catalogueVersionDecider.initialState());
      expect(() => catalogueVersionDecider.decide(start(D), state)).toThrow(/operator published version 2 since; serving version 2 \(publish the file with `admin catalogue publish/);
    });

    it('accepts a file the operator already published since, keeping the operator\'s later version', () => {
      const v3 = published(3, D, 'operator', T3, []);
      spec.given([v1, v2ByOperator, v3]).when(start(B)).then([]);
    });

    it('after a start published again, a later change of the file is published again', () => {
      const v3 = published(3, C, 'start', T3, []);
      spec.given([v1, v2ByOperator, v3]).when(start(D)).thenReturns(([e]) => expect([e!.data.version, e!.data.source]).toEqual([4, 'start']));
    });
  });
});
