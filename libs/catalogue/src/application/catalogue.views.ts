import type { Catalogue, CatalogueModel } from '../domain/catalogue';

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
      price_version: catalogue.priceVersion,
      parameters: { ...price.when },
    })),
  );
}

/** A model as published (CONTRACT.md §7); supplier names never leave the service. */
export function modelView(catalogue: Catalogue, model: CatalogueModel, withSchema: boolean) {
  return {
    id: model.id,
    name: model.name,
    modality: model.modality,
    capabilities: [...model.capabilities],
    available: model.available,
    resolved_model: model.resolved_model,
    ...(withSchema ? { input_schema: model.input_schema } : {}),
    prices: priceViews(catalogue, model),
  };
}
