import { readFileSync } from 'node:fs';
import { CatalogueFileError, parseCatalogueFile } from './catalogue-file';
import { defaultCatalogueFile } from './catalogue';

/** The default file with the voice sample's `x-media-types` set to `value`. */
function withMediaTypes(value: unknown): unknown {
  const file = JSON.parse(readFileSync(defaultCatalogueFile(), 'utf8')) as { models: { id: string; input_schema: { properties: Record<string, Record<string, unknown>> } }[] };
  file.models.find((m) => m.id === 'voice-clone-std')!.input_schema.properties.asset_ids['x-media-types'] = value;
  return file;
}

describe('x-media-types in an input schema', () => {
  it('is accepted as a list of media types, a whole type as type/*', () => {
    expect(() => parseCatalogueFile(withMediaTypes(['audio/wav', 'audio/*']))).not.toThrow();
  });

  it.each([[[]], [['audio']], [['Audio/WAV']], ['audio/wav'], [[3]]])('refuses %p, naming the model and the input schema', (value) => {
    const err = (() => {
      try {
        parseCatalogueFile(withMediaTypes(value));
      } catch (e) {
        return e;
      }
      throw new Error('accepted');
    })();
    expect(err).toBeInstanceOf(CatalogueFileError);
    expect((err as CatalogueFileError).details).toEqual({ model: 'voice-clone-std', field: 'input_schema' });
  });
});
