import { AppError } from '@gensvc/kernel';
import { Catalogue } from '../../domain/catalogue';
import { GetModelHandler } from './get-model.handler';

describe('GetModelHandler', () => {
  const handler = new GetModelHandler(Catalogue.load());

  it('answers one model with its input schema and prices', () => {
    const model = handler.execute({ model_id: 'image-studio-v2' });
    expect(model).toMatchObject({ id: 'image-studio-v2', modality: 'image', input_schema: expect.objectContaining({ type: 'object' }) });
    expect(model.prices.length).toBeGreaterThan(0);
    expect(model.prices.every((p) => p.model === 'image-studio-v2' && p.currency === 'CNY')).toBe(true);
  });

  it('refuses an unknown model with NOT_FOUND', () => {
    let refusal: unknown;
    try {
      handler.execute({ model_id: 'no-such-model' });
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect([(refusal as AppError).code, (refusal as AppError).message]).toEqual(['NOT_FOUND', 'model no-such-model not found']);
  });
});
