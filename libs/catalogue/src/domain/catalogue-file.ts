import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import jsonata from 'jsonata';
import { createHash } from 'node:crypto';
import { AppError } from '@gensvc/kernel';
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

/** A model as the catalogue file writes it: `supplier` + `supplier_model`, or `routes`. */
export interface CatalogueFileModel {
  readonly id: string;
  readonly name: string;
  readonly modality: Modality;
  readonly capabilities: readonly string[];
  readonly available: boolean;
  readonly supplier?: string;
  readonly supplier_model?: string;
  readonly routes?: readonly CatalogueRoute[];
  readonly resolved_model: string;
  readonly input_schema: Record<string, unknown>;
  readonly pricing: readonly CapabilityPricing[];
}

/** The catalogue file (the format `admin catalogue publish` takes and `show` prints). */
export interface CatalogueFile {
  readonly version: string;
  readonly currency: 'CNY';
  readonly models: readonly CatalogueFileModel[];
}

/**
 * A catalogue file that does not validate: the model (its id, or `models[i]` when it has none)
 * and the field at fault (`pricing[0].prices[1].unit_price`), and a message naming both.
 */
export class CatalogueFileError extends AppError {
  readonly details: { readonly model: string | null; readonly field: string };

  constructor(model: string | null, field: string, problem: string) {
    super('VALIDATION_ERROR', `catalogue: ${model ? `model ${model} ` : ''}${problem}`);
    this.name = 'CatalogueFileError';
    this.details = { model, field };
  }
}

const fileSchema = (() => {
  const ajv = new Ajv({ allErrors: true });
  return ajv.compile(catalogueFileSchema);
})();

/**
 * Validates a catalogue file (its text or its parsed JSON) and returns it as published,
 * unchanged. Everything the service checks before serving a catalogue is checked here: the
 * file's own schema, unique model ids, either `supplier` + `supplier_model` or `routes`, input
 * maps that parse as JSONata, input schemas that compile, prices of declared capabilities.
 * The first fault is thrown as a `CatalogueFileError` naming the model and the field.
 */
export function parseCatalogueFile(input: string | unknown): CatalogueFile {
  let parsed: unknown = input;
  if (typeof input === 'string') {
    try {
      parsed = JSON.parse(input) as unknown;
    } catch (err) {
      throw new CatalogueFileError(null, '', `file is not JSON: ${(err as Error).message}`);
    }
  }
  if (!fileSchema(parsed)) throw schemaError(parsed, fileSchema.errors ?? []);
  const file = parsed as CatalogueFile;
  const seen = new Set<string>();
  file.models.forEach((m) => {
    if (seen.has(m.id)) throw new CatalogueFileError(m.id, 'id', `id is used twice (duplicate model id ${m.id})`);
    seen.add(m.id);
    checkRoutes(m);
    compileInputSchema(m);
    m.pricing.forEach((p, i) => {
      if (!m.capabilities.includes(p.capability)) throw new CatalogueFileError(m.id, `pricing[${i}].capability`, `pricing[${i}].capability prices unknown capability ${p.capability}`);
    });
  });
  return file;
}

function checkRoutes(m: CatalogueFileModel): void {
  if (!m.routes) {
    if (!m.supplier || !m.supplier_model) throw new CatalogueFileError(m.id, 'routes', 'needs either supplier and supplier_model, or routes');
    return;
  }
  if (m.supplier !== undefined || m.supplier_model !== undefined) {
    throw new CatalogueFileError(m.id, m.supplier !== undefined ? 'supplier' : 'supplier_model', 'has routes, so it takes no supplier or supplier_model');
  }
  m.routes.forEach((r, i) => {
    if (r.input_map === undefined) return;
    try {
      jsonata(r.input_map);
    } catch (err) {
      const e = err as { message?: string; position?: number };
      throw new CatalogueFileError(m.id, `routes[${i}].input_map`, `routes[${i}].input_map is not a JSONata expression: ${e.message}${e.position !== undefined ? ` at ${e.position}` : ''}`);
    }
  });
}

/**
 * The keyword by which a model's input schema says what files a list of asset ids may name,
 * e.g. `"asset_ids": {"type": "array", ..., "x-media-types": ["audio/wav", "audio/mpeg"]}`
 * (`image/*` for any image type). Quotes refuse other files (ASSET_TYPE_UNSUPPORTED); clients
 * read it from GET /v1/models/{id}.
 */
export const MEDIA_TYPES_KEYWORD = 'x-media-types';

/** The Ajv options input schemas are compiled with (defaults applied, strict). */
export function inputSchemaCompiler(): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictRequired: false });
  addFormats(ajv);
  // An annotation the quote checks against the named assets; Ajv only checks its shape.
  ajv.addKeyword({
    keyword: MEDIA_TYPES_KEYWORD,
    schemaType: 'array',
    metaSchema: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[a-z]+/([a-z0-9.+-]+|\\*)$' } },
  });
  return ajv;
}

function compileInputSchema(m: CatalogueFileModel): void {
  try {
    inputSchemaCompiler().compile(m.input_schema);
  } catch (err) {
    throw new CatalogueFileError(m.id, 'input_schema', `input_schema does not compile: ${(err as Error).message}`);
  }
}

/** The first schema error, as `model <id> <field>: <problem>`. */
function schemaError(parsed: unknown, errors: readonly ErrorObject[]): CatalogueFileError {
  // The most specific error first: oneOf/anyOf summaries come after the errors they sum up.
  const e = [...errors].sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length)[0]!;
  const parts = e.instancePath.split('/').slice(1);
  let model: string | null = null;
  let path = parts;
  if (parts[0] === 'models' && parts[1] !== undefined) {
    const index = Number(parts[1]);
    const m = (parsed as { models: unknown[] }).models[index] as { id?: unknown } | undefined;
    model = typeof m?.id === 'string' && m.id ? m.id : `models[${index}]`;
    path = parts.slice(2);
  }
  let field = path.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
  const extra = (name: string) => (field ? `${field}.${name}` : name);
  let problem: string;
  if (e.keyword === 'additionalProperties') {
    field = extra((e.params as { additionalProperty: string }).additionalProperty);
    problem = 'is not a field of the catalogue file';
  } else if (e.keyword === 'required') {
    field = extra((e.params as { missingProperty: string }).missingProperty);
    problem = 'is required';
  } else if (e.keyword === 'enum') {
    problem = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  } else {
    problem = e.message ?? 'is invalid';
  }
  return new CatalogueFileError(model, field, `${field || 'file'}: ${problem}`);
}

/** JSON with object keys sorted: equal content, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Identifies a catalogue's content (whitespace and key order do not count). */
export const catalogueDigest = (file: CatalogueFile): string => sha256(canonicalJson(file));

/**
 * The price version of one model: derived from its pricing and the currency, so a changed
 * price gets a new price version and a model whose prices did not change keeps its own.
 */
export const priceVersionOf = (currency: string, model: Pick<CatalogueFileModel, 'pricing'>): string => `pv-${sha256(canonicalJson({ currency, pricing: model.pricing })).slice(0, 12)}`;

/** The price version of every model of a file. */
export function priceVersionsOf(file: CatalogueFile): Record<string, string> {
  return Object.fromEntries(file.models.map((m) => [m.id, priceVersionOf(file.currency, m)]));
}
