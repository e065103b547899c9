import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import jsonata from 'jsonata';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError, Money, type Micros } from '@gensvc/shared';
import { catalogueFileSchema } from './catalogue-file.schema';

export type Modality = 'text' | 'image' | 'audio' | 'video';

export type QuantityRule =
  | { kind: 'one' }
  | { kind: 'field'; field: string }
  | { kind: 'characters'; field: string; per: number };

export interface PriceRule {
  readonly when: Readonly<Record<string, string | number | boolean>>;
  readonly unit_price: string;
}

export interface CapabilityPricing {
  readonly capability: string;
  readonly unit: string;
  readonly quantity: QuantityRule;
  readonly prices: readonly PriceRule[];
}

/** One way to run a model: a provider model on a supplier channel (CONTRACT §14). Never shown to callers. */
export interface CatalogueRoute {
  readonly channel: string;
  /** The provider's own model name. */
  readonly supplier_model: string;
  /** Lower runs first (default 0). */
  readonly priority?: number;
  /** JSONata expression over `{input, options}` giving the provider's model-specific request part. */
  readonly input_map?: string;
  /** The operator's purchase price per pricing unit (CNY, six decimals): for margin reports only. */
  readonly unit_cost?: string;
}

export interface CatalogueModel {
  readonly id: string;
  readonly name: string;
  readonly modality: Modality;
  readonly capabilities: readonly string[];
  readonly available: boolean;
  /**
   * Supplier channel ("local", or an HTTP supplier's name); for a model with `routes`, the
   * marker `ROUTED` (its jobs run on the routes' channels). Never shown to callers.
   */
  readonly supplier: string;
  /** The supplier's own model name ('' for a model with `routes`). Never shown to callers. */
  readonly supplier_model: string;
  /** The model's routes, in the order they are tried (priority, then file order); absent for a one-channel model. */
  readonly routes?: readonly CatalogueRoute[];
  readonly resolved_model: string;
  readonly input_schema: Record<string, unknown>;
  readonly pricing: readonly CapabilityPricing[];
}

interface CatalogueFile {
  version: string;
  currency: 'CNY';
  models: CatalogueModel[];
}

/** The `supplier` of a model that has `routes`: its jobs run on the provider channel runner. */
export const ROUTED = '@routes';

export interface PriceQuote {
  readonly unit: string;
  readonly unitPrice: Micros;
  readonly quantity: number;
  readonly amount: Micros;
}

export interface InputValidation {
  readonly valid: boolean;
  /** The input with the schema's defaults applied (a copy). */
  readonly params: Record<string, unknown>;
  readonly errors: readonly string[];
}

/** The repository's catalogue file, found from the source tree or the build output alike. */
export function defaultCatalogueFile(): string {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const candidate = join(dir, 'libs', 'catalogue', 'catalogue', 'catalogue.json');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('catalogue: libs/catalogue/catalogue/catalogue.json not found');
}

/**
 * The catalogue: models, their input schemas and prices, loaded from a versioned file and
 * validated at start (the file against its own schema, every input_schema compiled by ajv).
 * The price version is the file's version plus a hash of its content, so any price edit
 * yields a new price_version.
 */
export class Catalogue {
  private readonly byId: ReadonlyMap<string, CatalogueModel>;
  private readonly validators = new Map<string, ValidateFunction>();
  /** Models with routes whose probes passed (CONTRACT §14 "verified route"), as the suppliers context reports them. */
  private readonly verified = new Set<string>();

  private constructor(
    private readonly file: CatalogueFile,
    readonly priceVersion: string,
  ) {
    this.byId = new Map(file.models.map((m) => [m.id, m]));
    const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictRequired: false });
    addFormats(ajv);
    for (const m of file.models) {
      try {
        this.validators.set(m.id, ajv.compile(m.input_schema));
      } catch (err) {
        throw new Error(`catalogue: input_schema of ${m.id} does not compile: ${(err as Error).message}`);
      }
      for (const p of m.pricing) {
        if (!m.capabilities.includes(p.capability)) throw new Error(`catalogue: ${m.id} prices unknown capability ${p.capability}`);
        for (const price of p.prices) Money.parse(price.unit_price);
      }
    }
  }

  static fromText(text: string): Catalogue {
    const parsed = JSON.parse(text) as unknown;
    const ajv = new Ajv({ allErrors: true });
    const validate = ajv.compile(catalogueFileSchema);
    if (!validate(parsed)) throw new Error(`catalogue file invalid: ${ajv.errorsText(validate.errors)}`);
    const file = parsed as CatalogueFile;
    file.models = file.models.map(normaliseRoutes);
    const ids = file.models.map((m) => m.id);
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup) throw new Error(`catalogue: duplicate model id ${dup}`);
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 12);
    return new Catalogue(file, `${file.version}+${hash}`);
  }

  static load(path = process.env.CATALOGUE_FILE || defaultCatalogueFile()): Catalogue {
    return Catalogue.fromText(readFileSync(path, 'utf8'));
  }

  get currency(): 'CNY' {
    return this.file.currency;
  }

  models(): readonly CatalogueModel[] {
    return this.file.models;
  }

  model(id: string): CatalogueModel | undefined {
    return this.byId.get(id);
  }

  /**
   * Whether the catalogue sells the model now: offered in the file and, for a model with
   * routes, at least one route passed its last probe (`setVerified`). A one-channel model
   * (the local supplier, a gensvc-protocol channel) needs no probe.
   */
  isAvailable(model: CatalogueModel | string): boolean {
    const m = typeof model === 'string' ? this.byId.get(model) : model;
    if (!m?.available) return false;
    return m.routes ? this.verified.has(m.id) : true;
  }

  /** Records what the route probes found for a model with routes. */
  setVerified(modelId: string, verified: boolean): void {
    if (verified) this.verified.add(modelId);
    else this.verified.delete(modelId);
  }

  /** The supplier channels a model runs on: its routes' channels, or its one channel. */
  channelsOf(model: CatalogueModel): string[] {
    return model.routes ? [...new Set(model.routes.map((r) => r.channel))] : [model.supplier];
  }

  capabilities(): string[] {
    return [...new Set(this.file.models.flatMap((m) => m.capabilities))].sort();
  }

  /**
   * Validates an input against the model's schema and applies its defaults.
   * Error messages name the offending field (`input.size: must be equal to one of ...`).
   */
  validateInput(modelId: string, input: Record<string, unknown>): InputValidation {
    const validate = this.validators.get(modelId);
    if (!validate) throw new AppError('NOT_FOUND', `model ${modelId} not found`);
    const params = structuredClone(input);
    const valid = validate(params) as boolean;
    return { valid, params, errors: valid ? [] : (validate.errors ?? []).map(describeAjvError) };
  }

  /** Prices a validated request; PRICE_UNAVAILABLE when no price matches the parameters. */
  price(modelId: string, capability: string, params: Record<string, unknown>): PriceQuote {
    const model = this.byId.get(modelId);
    if (!model) throw new AppError('NOT_FOUND', `model ${modelId} not found`);
    const pricing = model.pricing.find((p) => p.capability === capability);
    const rule = pricing?.prices.find((p) => Object.entries(p.when).every(([k, v]) => params[k] === v));
    if (!pricing || !rule) {
      const detail = pricing ? Object.keys(pricing.prices[0]?.when ?? {}).map((k) => `${k}=${JSON.stringify(params[k])}`).join(', ') : '';
      throw new AppError('PRICE_UNAVAILABLE', `no price for ${modelId} ${capability}${detail ? ` with ${detail}` : ''}; choose other parameters`);
    }
    const quantity = quantityOf(pricing.quantity, params);
    const unitPrice = Money.parse(rule.unit_price);
    return { unit: pricing.unit, unitPrice, quantity, amount: Money.multiply(unitPrice, quantity) };
  }
}

/**
 * A model has either `supplier` + `supplier_model` or `routes`; routes are sorted by
 * priority (stable: the file's order breaks ties) and their input maps must parse.
 */
function normaliseRoutes(m: CatalogueModel): CatalogueModel {
  const raw = m as CatalogueModel & { supplier?: string; supplier_model?: string };
  if (!m.routes) {
    if (!raw.supplier || !raw.supplier_model) throw new Error(`catalogue: model ${m.id} needs either supplier and supplier_model, or routes`);
    return m;
  }
  if (raw.supplier !== undefined || raw.supplier_model !== undefined) throw new Error(`catalogue: model ${m.id} has routes, so it takes no supplier or supplier_model`);
  m.routes.forEach((r, i) => {
    if (r.input_map === undefined) return;
    try {
      jsonata(r.input_map);
    } catch (err) {
      const e = err as { message?: string; position?: number };
      throw new Error(`catalogue: model ${m.id} routes[${i}].input_map is not a JSONata expression: ${e.message}${e.position !== undefined ? ` at ${e.position}` : ''}`);
    }
  });
  const routes = m.routes.map((r, i) => ({ r, i })).sort((a, b) => (a.r.priority ?? 0) - (b.r.priority ?? 0) || a.i - b.i).map(({ r }) => r);
  return { ...m, supplier: ROUTED, supplier_model: '', routes };
}

function quantityOf(rule: QuantityRule, params: Record<string, unknown>): number {
  switch (rule.kind) {
    case 'one':
      return 1;
    case 'field': {
      const v = params[rule.field];
      if (!Number.isInteger(v) || (v as number) < 1) throw new AppError('VALIDATION_ERROR', `input.${rule.field}: must be a positive integer`);
      return v as number;
    }
    case 'characters': {
      const v = params[rule.field];
      if (typeof v !== 'string') throw new AppError('VALIDATION_ERROR', `input.${rule.field}: must be a string`);
      return Math.max(1, Math.ceil([...v].length / rule.per));
    }
    default: {
      const never: never = rule;
      throw new Error(`unknown quantity rule ${JSON.stringify(never)}`);
    }
  }
}

function describeAjvError(e: ErrorObject): string {
  if (e.keyword === 'additionalProperties') {
    return `input.${(e.params as { additionalProperty: string }).additionalProperty}: not a parameter of this model`;
  }
  if (e.keyword === 'required') return `input.${(e.params as { missingProperty: string }).missingProperty}: is required`;
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const detail = e.keyword === 'enum' ? `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}` : e.message;
  return `input${path ? `.${path}` : ''}: ${detail}`;
}
