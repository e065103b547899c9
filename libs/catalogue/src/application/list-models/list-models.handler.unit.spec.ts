import { Catalogue } from '../../domain/catalogue';
import { ListModelsHandler } from './list-models.handler';

describe('ListModelsHandler', () => {
  const catalogue = Catalogue.load();
  const handler = new ListModelsHandler(catalogue);

  it('lists every model on one page, without input schemas', () => {
    const page = handler.execute({});
    expect(page).toMatchObject({ page: 1, has_more: false, limit: catalogue.models().length });
    expect(page.data.map((m) => m.id)).toEqual(catalogue.models().map((m) => m.id));
    for (const m of page.data) expect(m).not.toHaveProperty('input_schema');
  });

  it('filters by capability and by modality', () => {
    const speech = handler.execute({ capability: 'speech.synthesize' }).data;
    expect(speech.length).toBeGreaterThan(0);
    for (const m of speech) expect(m.capabilities).toContain('speech.synthesize');
    const images = handler.execute({ modality: 'image' }).data;
    expect(images.length).toBeGreaterThan(0);
    expect(images.every((m) => m.modality === 'image')).toBe(true);
    expect(handler.execute({ capability: 'no.such' })).toEqual({ data: [], page: 1, limit: 1, has_more: false });
  });
});
