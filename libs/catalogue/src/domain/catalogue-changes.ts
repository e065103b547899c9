import { canonicalJson, priceVersionOf, type CatalogueFile, type CatalogueFileModel, type CatalogueRoute } from './catalogue-file';

/**
 * One difference between two catalogues, always naming its model:
 * - `added` / `removed`: the model (with its price version when added);
 * - `price`: one price of a capability and parameter combination (`from` / `to` null when it
 *   is new or gone), and `price_version` once per model whose prices changed;
 * - `pricing`: the unit or the quantity rule of a capability;
 * - `available`, `name`, `modality`, `capabilities`, `resolved_model`: that field;
 * - `routes`: how the model runs (its routes, or its `supplier` / `supplier_model` as one route);
 * - `input_schema`: the model's input schema changed.
 */
export type CatalogueChange =
  | { readonly model: string; readonly change: 'added'; readonly price_version: string }
  | { readonly model: string; readonly change: 'removed' }
  | {
      readonly model: string;
      readonly change: 'price';
      readonly capability: string;
      readonly parameters: Readonly<Record<string, string | number | boolean>>;
      readonly from: string | null;
      readonly to: string | null;
    }
  | { readonly model: string; readonly change: 'price_version'; readonly from: string; readonly to: string }
  | { readonly model: string; readonly change: 'pricing'; readonly capability: string; readonly field: 'unit' | 'quantity'; readonly from: unknown; readonly to: unknown }
  | { readonly model: string; readonly change: 'available' | 'name' | 'modality' | 'capabilities' | 'resolved_model'; readonly from: unknown; readonly to: unknown }
  | { readonly model: string; readonly change: 'routes'; readonly from: readonly CatalogueRoute[]; readonly to: readonly CatalogueRoute[] }
  | { readonly model: string; readonly change: 'input_schema' };

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** The routes a model runs on, `supplier` + `supplier_model` written as its one route. */
const routesOf = (m: CatalogueFileModel): readonly CatalogueRoute[] => m.routes ?? [{ channel: m.supplier ?? '', supplier_model: m.supplier_model ?? '' }];

/** What changes from `before` (null: no catalogue yet) to `after`, model by model in `after`'s order, removed models last. */
export function catalogueChanges(before: CatalogueFile | null, after: CatalogueFile): CatalogueChange[] {
  const old = new Map((before?.models ?? []).map((m) => [m.id, m]));
  const changes: CatalogueChange[] = [];
  for (const m of after.models) {
    const o = old.get(m.id);
    if (!o) {
      changes.push({ model: m.id, change: 'added', price_version: priceVersionOf(after.currency, m) });
      continue;
    }
    for (const field of ['available', 'name', 'modality', 'capabilities', 'resolved_model'] as const) {
      if (!same(o[field], m[field])) changes.push({ model: m.id, change: field, from: o[field], to: m[field] });
    }
    if (!same(routesOf(o), routesOf(m))) changes.push({ model: m.id, change: 'routes', from: routesOf(o), to: routesOf(m) });
    if (!same(o.input_schema, m.input_schema)) changes.push({ model: m.id, change: 'input_schema' });
    changes.push(...pricingChanges(before!.currency, o, after.currency, m));
  }
  const kept = new Set(after.models.map((m) => m.id));
  for (const o of before?.models ?? []) if (!kept.has(o.id)) changes.push({ model: o.id, change: 'removed' });
  return changes;
}

function pricingChanges(oldCurrency: string, o: CatalogueFileModel, newCurrency: string, m: CatalogueFileModel): CatalogueChange[] {
  const from = priceVersionOf(oldCurrency, o);
  const to = priceVersionOf(newCurrency, m);
  if (from === to) return [];
  const out: CatalogueChange[] = [];
  const capabilities = [...new Set([...m.pricing.map((p) => p.capability), ...o.pricing.map((p) => p.capability)])];
  for (const capability of capabilities) {
    const a = o.pricing.find((p) => p.capability === capability);
    const b = m.pricing.find((p) => p.capability === capability);
    if (a && b) {
      if (a.unit !== b.unit) out.push({ model: m.id, change: 'pricing', capability, field: 'unit', from: a.unit, to: b.unit });
      if (!same(a.quantity, b.quantity)) out.push({ model: m.id, change: 'pricing', capability, field: 'quantity', from: a.quantity, to: b.quantity });
    }
    const before = a?.prices ?? [];
    const after = b?.prices ?? [];
    for (const p of after) {
      const q = before.find((x) => same(x.when, p.when));
      if (!q || q.unit_price !== p.unit_price) out.push({ model: m.id, change: 'price', capability, parameters: p.when, from: q?.unit_price ?? null, to: p.unit_price });
    }
    for (const q of before) {
      if (!after.some((p) => same(p.when, q.when))) out.push({ model: m.id, change: 'price', capability, parameters: q.when, from: q.unit_price, to: null });
    }
  }
  out.push({ model: m.id, change: 'price_version', from, to });
  return out;
}
