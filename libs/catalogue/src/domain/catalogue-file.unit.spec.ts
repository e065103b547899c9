import { readFileSync } from 'node:fs';
import { CatalogueFileError, catalogueDigest, parseCatalogueFile, priceVersionsOf, type CatalogueFile } from './catalogue-file';
import { defaultCatalogueFile } from './catalogue';

const text = readFileSync(defaultCatalogueFile(), 'utf8');
/** The file as plain, mutable JSON. */
interface PlainModel extends Record<string, unknown> {
  id: string;
  pricing: { capability: string; prices: { unit_price: string }[] }[];
}
const base = (): { version: string; currency: 'CNY'; models: PlainModel[] } => JSON.parse(text);

/** The error a file is refused with. */
function refusal(file: unknown): CatalogueFileError {
  try {
    parseCatalogueFile(file);
  } catch (err) {
    if (err instanceof CatalogueFileError) return err;
    throw err;
  }
  throw new Error('the file was accepted');
}

describe('catalogue file', () => {
  it('accepts the repository\'s catalogue as it is', () => {
    expect(parseCatalogueFile(text)).toEqual(JSON.parse(text));
  });

  it('names the model and the field of a price that is not an amount', () => {
    const file = base();
    file.models[1]!.pricing[0]!.prices[1]!.unit_price = '0.2';
    const err = refusal(file);
    expect([err.code, err.details]).toEqual(['VALIDATION_ERROR', { model: 'image-studio-v2', field: 'pricing[0].prices[1].unit_price' }]);
    expect(err.message).toMatch(/^catalogue: model image-studio-v2 pricing\[0\]\.prices\[1\]\.unit_price: must match pattern/);
  });

  it('names a missing field, an unknown field and a bad enum value', () => {
    const missing = base();
    delete missing.models[0]!.name;
    expect(refusal(missing).details).toEqual({ model: 'text-writer-lite', field: 'name' });
    const unknown = base();
    unknown.models[2]!.colour = 'red';
    expect(refusal(unknown).details).toEqual({ model: 'speech-tts-std', field: 'colour' });
    const modality = base();
    modality.models[0]!.modality = 'smell';
    expect(refusal(modality).message).toMatch(/model text-writer-lite modality: must be one of "text", "image", "audio", "video"/);
  });

  it('names a duplicate id, a price of an undeclared capability and an input schema that does not compile', () => {
    const dup = base();
    dup.models.push({ ...dup.models[0]! });
    expect(refusal(dup).details).toEqual({ model: 'text-writer-lite', field: 'id' });
    const capability = base();
    capability.models[0]!.pricing[0]!.capability = 'image.generate';
    expect(refusal(capability).details).toEqual({ model: 'text-writer-lite', field: 'pricing[0].capability' });
    const schema = base();
    schema.models[0]!.input_schema = { type: 'object', properties: { n: { type: 'nonsense' } } };
    expect(refusal(schema).details).toEqual({ model: 'text-writer-lite', field: 'input_schema' });
  });

  it('refuses text that is not JSON and a file without models', () => {
    expect(refusal('{"version": ').details).toEqual({ model: null, field: '' });
    expect(refusal({ version: '1', currency: 'CNY' }).details).toEqual({ model: null, field: 'models' });
  });

  it('derives one digest per content and one price version per model\'s prices', () => {
    const a = base();
    const reordered = JSON.parse(JSON.stringify({ models: a.models, currency: a.currency, version: a.version })) as CatalogueFile;
    expect(catalogueDigest(reordered)).toBe(catalogueDigest(a as unknown as CatalogueFile));
    const b = base();
    b.models[0]!.pricing[0]!.prices[0]!.unit_price = '0.030000';
    b.models[1]!.name = 'Renamed';
    const [pa, pb] = [priceVersionsOf(a as unknown as CatalogueFile), priceVersionsOf(b as unknown as CatalogueFile)];
    expect(pb['text-writer-lite']).not.toBe(pa['text-writer-lite']);
    expect(pb['image-studio-v2']).toBe(pa['image-studio-v2']);
    expect(pa['text-writer-lite']).toMatch(/^pv-[0-9a-f]{12}$/);
  });
});
