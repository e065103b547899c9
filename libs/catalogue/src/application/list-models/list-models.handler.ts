import { Injectable } from '@nestjs/common';
import { Catalogue } from '../../domain/catalogue';
import { modelView, onePage, type CataloguePage, type ModelView } from '../catalogue.views';

export interface ListModelsQuery {
  /** Only the models with this capability. */
  readonly capability?: string;
  /** Only the models of this modality. */
  readonly modality?: string;
}

/** GET /v1/models: the catalogue's models with their prices, without input schemas. */
@Injectable()
export class ListModelsHandler {
  constructor(private readonly catalogue: Catalogue) {}

  execute(query: ListModelsQuery): CataloguePage<ModelView> {
    const data = this.catalogue
      .models()
      .filter((m) => !query.capability || m.capabilities.includes(query.capability))
      .filter((m) => !query.modality || m.modality === query.modality)
      .map((m) => modelView(this.catalogue, m, false));
    return onePage(data);
  }
}
