import type { Catalogue, CatalogueModel } from '../domain/catalogue';

/** A list of the catalogue: everything on one page (the catalogue is small). */
export interface CataloguePage<T> {
  data: T[];
  page: 1;
  limit: number;
  has_more: false;
}

export const onePage = <T>(data: T[]): CataloguePage<T> => ({ data, page: 1, limit: Math.max(1, data.length), has_more: false });

/** A price as published: `{model, capability, unit, unit_price, currency, pricing_mode, price_version, parameters}`. */
export function priceViews(catalogue: Catalogue, model: CatalogueModel) {
  return model.pricing.flatMap((p) =>
    p.prices.map((price) => ({
      model: model.id,
      capability: p.capability,
      unit: p.unit,
      unit_price: price.unit_price,
      currency: catalogue.currency,
      pricing_mode: 'fixed' as const,
      price_version: catalogue.priceVersionOf(model.id),
      parameters: { ...price.when },
    })),
  );
}

export type PriceView = ReturnType<typeof priceViews>[number];

/** A model as published (CONTRACT.md §7); supplier names never leave the service. */
export function modelView(catalogue: Catalogue, model: CatalogueModel, withSchema: boolean) {
  return {
    id: model.id,
    name: model.name,
    modality: model.modality,
    capabilities: [...model.capabilities],
    available: catalogue.isAvailable(model),
    resolved_model: model.resolved_model,
    ...(withSchema ? { input_schema: model.input_schema } : {}),
    prices: priceViews(catalogue, model),
  };
}

export type ModelView = ReturnType<typeof modelView>;
