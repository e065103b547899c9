import { Injectable } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';
import { Catalogue } from '../../domain/catalogue';
import { modelView, type ModelView } from '../catalogue.views';

export interface GetModelQuery {
  readonly model_id: string;
}

/** GET /v1/models/{id}: one model with its input schema and prices; NOT_FOUND for an unknown id. */
@Injectable()
export class GetModelHandler {
  constructor(private readonly catalogue: Catalogue) {}

  execute(query: GetModelQuery): ModelView {
    const model = this.catalogue.model(query.model_id);
    if (!model) throw new AppError('NOT_FOUND', `model ${query.model_id} not found`);
    return modelView(this.catalogue, model, true);
  }
}
