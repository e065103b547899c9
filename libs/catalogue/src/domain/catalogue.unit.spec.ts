import { readFileSync } from 'node:fs';
import { parseCatalogueFile, type CatalogueFile } from './catalogue-file';
import { Catalogue, CatalogueVersion, defaultCatalogueFile } from './catalogue';

const file = (): CatalogueFile & { models: Record<string, unknown>[] } => JSON.parse(readFileSync(defaultCatalogueFile(), 'utf8'));

/** The default catalogue plus one routed model. */
function withRouted(price = '1.000000'): CatalogueFile {
  const f = file();
  f.models.push({
    ...f.models[0]!,
    id: 'routed-writer',
    supplier: undefined,
    supplier_model: undefined,
    routes: [{ channel: 'replicate', supplier_model: 'acme/writer', unit_cost: '0.400000' }],
    pricing: [{ capability: 'text.generate', unit: 'request', quantity: { kind: 'one' }, prices: [{ when: {}, unit_price: price }] }],
  });
  return parseCatalogueFile(JSON.parse(JSON.stringify(f)));
}

describe('Catalogue', () => {
  it('swaps its content in place and tells its listeners', () => {
    const catalogue = new Catalogue(new CatalogueVersion(file(), { version: 1, publishedAt: '2026-11-01T00:00:00.000Z' }));
    const seen: number[] = [];
    const stop = catalogue.onChange((c) => seen.push(c.version));
    const before = catalogue.priceVersionOf('text-writer-lite');
    catalogue.replace(new CatalogueVersion(withRouted(), { version: 2, publishedAt: '2026-11-02T00:00:00.000Z' }));
    expect([catalogue.version, catalogue.publishedAt, seen]).toEqual([2, '2026-11-02T00:00:00.000Z', [2]]);
    expect(catalogue.model('routed-writer')?.routes?.[0]?.channel).toBe('replicate');
    expect(catalogue.priceVersionOf('text-writer-lite')).toBe(before);
    stop();
    catalogue.replace(new CatalogueVersion(file(), { version: 3, publishedAt: null }));
    expect(seen).toEqual([2]);
    expect(catalogue.model('routed-writer')).toBeUndefined();
  });

  it('keeps what the route probes verified per model id across versions', () => {
    const catalogue = new Catalogue(new CatalogueVersion(withRouted(), { version: 1, publishedAt: null }));
    expect(catalogue.isAvailable('routed-writer')).toBe(false);
    catalogue.setVerified('routed-writer', true);
    catalogue.replace(new CatalogueVersion(withRouted('2.000000'), { version: 2, publishedAt: null }));
    expect(catalogue.isAvailable('routed-writer')).toBe(true);
    expect(catalogue.availableModels()).toContain('routed-writer');
    catalogue.replace(new CatalogueVersion(file(), { version: 3, publishedAt: null }));
    expect(catalogue.isAvailable('routed-writer')).toBe(false);
    expect(catalogue.availableModels()).not.toContain('routed-writer');
  });

  it('tells every listener even when one fails, then reports the failure', () => {
    const catalogue = new Catalogue(new CatalogueVersion(file(), { version: 1, publishedAt: null }));
    const seen: string[] = [];
    catalogue.onChange(() => {
      throw new Error('listener down');
    });
    catalogue.onChange(() => seen.push('second'));
    expect(() => catalogue.replace(new CatalogueVersion(withRouted(), { version: 2, publishedAt: null }))).toThrow('listener down');
    expect([seen, catalogue.version]).toEqual([['second'], 2]);
  });

  it('serves a version as one snapshot: a replaced catalogue leaves a held version unchanged', () => {
    const catalogue = new Catalogue(new CatalogueVersion(withRouted('1.000000'), { version: 1, publishedAt: null }));
    const held = catalogue.current();
    catalogue.replace(new CatalogueVersion(withRouted('3.000000'), { version: 2, publishedAt: null }));
    expect(held.price('routed-writer', 'text.generate', {}).unitPrice).toBe(1_000_000n);
    expect(catalogue.price('routed-writer', 'text.generate', {}).unitPrice).toBe(3_000_000n);
  });
});
