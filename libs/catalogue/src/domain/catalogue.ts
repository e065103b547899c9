import type { ErrorObject, ValidateFunction } from 'ajv';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError, Money, type Micros } from '@gensvc/kernel';
import { inputSchemaCompiler, parseCatalogueFile, priceVersionsOf, type CatalogueFile, type CatalogueFileModel, type CatalogueRoute, type QuantityRule } from './catalogue-file';

export type { CapabilityPricing, CatalogueFile, CatalogueFileModel, CatalogueRoute, Modality, PriceRule, QuantityRule } from './catalogue-file';

/** A model as the service runs it: routes in the order they are tried, `supplier` set either way. */
export interface CatalogueModel extends Omit<CatalogueFileModel, 'supplier' | 'supplier_model' | 'routes'> {
  /**
   * Supplier channel ("local", or an HTTP supplier's name); for a model with `routes`, the
   * marker `ROUTED` (its jobs run on the routes' channels). Never shown to callers.
   */
  readonly supplier: string;
  /** The supplier's own model name ('' for a model with `routes`). Never shown to callers. */
  readonly supplier_model: string;
  /** The model's routes, in the order they are tried (priority, then file order); absent for a one-channel model. */
  readonly routes?: readonly CatalogueRoute[];
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

/** The start file of a process: `CATALOGUE_FILE`, or the repository's catalogue. */
export const startCatalogueFile = (): string => process.env.CATALOGUE_FILE || defaultCatalogueFile();

/** Where a version of the catalogue comes from: its number (0: a file read directly, never published) and when it was published. */
export interface CatalogueVersionInfo {
  readonly version: number;
  readonly publishedAt: string | null;
  /** The price version of each model as published (computed from the file when absent). */
  readonly priceVersions?: Readonly<Record<string, string>>;
}

/**
 * One version of the catalogue, immutable: its models, their compiled input schemas and
 * prices. A request that reads the catalogue several times takes one (`Catalogue.current()`),
 * so a publish in between cannot mix two versions into one answer.
 */
export class CatalogueVersion {
  readonly version: number;
  readonly publishedAt: string | null;
  private readonly byId: ReadonlyMap<string, CatalogueModel>;
  private readonly normalised: readonly CatalogueModel[];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly priceVersions: Readonly<Record<string, string>>;

  /** `file` must have passed `parseCatalogueFile`. */
  constructor(
    readonly file: CatalogueFile,
    info: CatalogueVersionInfo,
  ) {
    this.version = info.version;
    this.publishedAt = info.publishedAt;
    this.normalised = file.models.map(normaliseRoutes);
    this.byId = new Map(this.normalised.map((m) => [m.id, m]));
    const ajv = inputSchemaCompiler();
    for (const m of file.models) this.validators.set(m.id, ajv.compile(m.input_schema));
    this.priceVersions = { ...priceVersionsOf(file), ...info.priceVersions };
  }

  get currency(): 'CNY' {
    return this.file.currency;
  }

  models(): readonly CatalogueModel[] {
    return this.normalised;
  }

  model(id: string): CatalogueModel | undefined {
    return this.byId.get(id);
  }

  /** The price version of a model's prices (a changed price gets a new one). */
  priceVersionOf(modelId: string): string {
    const v = this.priceVersions[modelId];
    if (v === undefined) throw new AppError('NOT_FOUND', `model ${modelId} not found`);
    return v;
  }

  capabilities(): string[] {
    return [...new Set(this.normalised.flatMap((m) => m.capabilities))].sort();
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

/** Told the catalogue now serves another version. */
export type CatalogueListener = (catalogue: Catalogue) => void;

/**
 * The catalogue the service sells from: the one instance every context injects. Its content
 * is the published version in service (`current()`), swapped in place when another version
 * is published (`replace`), so references to it stay valid; `onChange` tells listeners (the
 * route probes learn of new routes that way). Which routed models passed their route probes
 * is kept per model id and survives a new version.
 */
export class Catalogue {
  private content: CatalogueVersion;
  /** Models with routes whose probes passed (CONTRACT §14 "verified route"), as the suppliers context reports them. */
  private readonly verified = new Set<string>();
  private readonly listeners = new Set<CatalogueListener>();

  constructor(content: CatalogueVersion) {
    this.content = content;
  }

  /** A catalogue file's text, validated (`CatalogueFileError` names the model and the field); version 0. */
  static fromText(text: string): Catalogue {
    return new Catalogue(new CatalogueVersion(parseCatalogueFile(text), { version: 0, publishedAt: null }));
  }

  /** A catalogue file read directly (tests and tools); the service serves the published version. */
  static load(path = startCatalogueFile()): Catalogue {
    return Catalogue.fromText(readFileSync(path, 'utf8'));
  }

  /** The version in service now. */
  current(): CatalogueVersion {
    return this.content;
  }

  /** Serves another version from now on and tells the listeners (a listener's failure does not stop the others; the first is thrown after). */
  replace(next: CatalogueVersion): void {
    this.content = next;
    let failure: unknown;
    for (const listener of this.listeners) {
      try {
        listener(this);
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /** Calls `listener` after each change of version; returns the function that stops it. */
  onChange(listener: CatalogueListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The published version in service (0 for a file read directly). */
  get version(): number {
    return this.content.version;
  }

  get publishedAt(): string | null {
    return this.content.publishedAt;
  }

  get currency(): 'CNY' {
    return this.content.currency;
  }

  models(): readonly CatalogueModel[] {
    return this.content.models();
  }

  model(id: string): CatalogueModel | undefined {
    return this.content.model(id);
  }

  /**
   * Whether the catalogue sells the model now: offered in the version in service and, for a
   * model with routes, at least one route passed its last probe (`setVerified`). A one-channel
   * model (the local supplier, a gensvc-protocol channel) needs no probe.
   */
  isAvailable(model: CatalogueModel | string): boolean {
    const m = this.content.model(typeof model === 'string' ? model : model.id);
    if (!m?.available) return false;
    return m.routes ? this.verified.has(m.id) : true;
  }

  /** The ids of the models `isAvailable` says are sold now. */
  availableModels(): string[] {
    return this.content
      .models()
      .filter((m) => this.isAvailable(m))
      .map((m) => m.id);
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

  priceVersionOf(modelId: string): string {
    return this.content.priceVersionOf(modelId);
  }

  capabilities(): string[] {
    return this.content.capabilities();
  }

  validateInput(modelId: string, input: Record<string, unknown>): InputValidation {
    return this.content.validateInput(modelId, input);
  }

  price(modelId: string, capability: string, params: Record<string, unknown>): PriceQuote {
    return this.content.price(modelId, capability, params);
  }
}

/** A model as the service runs it: routes sorted by priority (stable: the file's order breaks ties), `supplier` set. */
function normaliseRoutes(m: CatalogueFileModel): CatalogueModel {
  if (!m.routes) return { ...m, supplier: m.supplier!, supplier_model: m.supplier_model! };
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
