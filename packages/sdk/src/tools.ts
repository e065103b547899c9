/**
 * The agent tools (`@gensvc/sdk/tools`): one definition per API operation, shared by every
 * transport (the local `gensvc mcp` over stdio and the service's `/mcp`). Input schemas are the
 * operation's own request JSON Schemas from the OpenAPI document (body fields and query
 * parameters under their API names, plus the path id); output schemas are its response schema.
 * Model input is left to the API (`input` is an object), so the API's own error comes back.
 */
import { ApiError, GensvcError, TaskCanceledError, TaskFailedError, TimeoutError } from './errors.js';
import type { Gensvc } from './client.js';
import { document as servedDocument } from './generated/document.js';
import type { JsonSchema, OpenApiDocument, OpenApiOperation } from './openapi-document.js';
import type { Task } from './types.js';

export type { JsonSchema } from './openapi-document.js';

/** MCP tool annotations (hints to the agent; set from what the operation really does). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a running tool may use besides the client. */
export interface ToolContext {
  /** Present when the caller asked for progress (an MCP progress token). */
  progress?: (progress: number, total: number | undefined, message: string) => Promise<void> | void;
  signal?: AbortSignal;
}

export type ToolScope = 'read' | 'create';

export interface ToolDefinition {
  name: string;
  description: string;
  /** The OpenAPI operation it calls (`undefined` for local tools such as assets.upload.file). */
  operationId?: string;
  /** The OAuth scopes the tool needs (API keys have both); none: public. */
  scopes: readonly ToolScope[];
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations;
  run(client: Gensvc, args: Record<string, unknown>, context: ToolContext): Promise<Record<string, unknown>>;
}

/** The error object a failed tool call returns (the API's own, or one of the same shape). */
export function toolError(err: unknown): { error: { code: string; message: string; request_id?: string } } {
  if (err instanceof ApiError) return err.toJSON();
  if (err instanceof GensvcError) return { error: { code: (err as { code?: string }).code ?? 'CLIENT_ERROR', message: err.message } };
  if (err instanceof ToolInputError) return { error: { code: 'VALIDATION_ERROR', message: err.message } };
  return { error: { code: 'CLIENT_ERROR', message: err instanceof Error ? err.message : String(err) } };
}

/** Arguments that do not fit the tool's input schema (checked before any request). */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

type Args = Record<string, unknown>;

interface Spec {
  name: string;
  method: string;
  path: string;
  /** Argument name of the path id. */
  id?: 'id' | 'upload_id';
  /** Extra input properties (not in the API's body or query), e.g. tasks.create's idempotency_key. */
  extra?: { properties: Record<string, JsonSchema>; required: string[] };
  hints: Omit<ToolAnnotations, 'title'>;
  description?: string;
  /** A tool of its own rather than the operation's: its name, summary and scopes (the operation gives the schemas). */
  own?: { title: string; summary: string; scopes: ToolScope[]; output: JsonSchema };
  call: (c: Gensvc, a: Args, ctx: ToolContext) => Promise<unknown>;
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const str = (v: unknown) => String(v);
const pick = (a: Args, keys: string[]) => Object.fromEntries(keys.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);
const STATUS_STEP: Record<string, number> = { queued: 1, running: 2, succeeded: 3, failed: 3, canceled: 3 };

/** The Idempotency-Key of a task creation as a tool argument (8 to 150 characters, as the API takes it). */
const idempotencyKey = (description: string): JsonSchema => ({ type: 'string', minLength: 8, maxLength: 150, description });

/** How long tasks.run waits for the task (within the usual 60-second request timeout of MCP clients). */
const RUN_WAIT_S = 55;

/**
 * Progress notifications of a task (MCP progress only grows): one per step, queued (1 of 3)
 * then running (2 of 3); the finished task (3) is the result itself. Without a progress
 * token, nothing.
 */
function progressOf(ctx: ToolContext): { report: (t: Task) => void; sent: () => Promise<unknown> } {
  let step = 0;
  let sending: Promise<unknown> = Promise.resolve();
  return {
    report: (t: Task) => {
      const next = STATUS_STEP[t.status] ?? 1;
      if (!ctx.progress || next <= step || TERMINAL.has(t.status)) return;
      step = next;
      sending = sending.then(() => ctx.progress?.(next, 3, `${t.id}: ${t.status}`));
    },
    sent: () => sending,
  };
}

const SPECS: Spec[] = [
  { name: 'models.list', method: 'get', path: '/v1/models', hints: READ, call: (c, a) => c.models.list(pick(a, ['capability', 'modality'])) },
  { name: 'models.get', method: 'get', path: '/v1/models/{id}', id: 'id', hints: READ, call: (c, a) => c.models.get(str(a.id)) },
  {
    name: 'quotes.create',
    method: 'post',
    path: '/v1/quotes',
    // Writes a quote (valid 15 minutes, reserves nothing); a repeat makes another quote.
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    call: (c, a) => c.quotes.create(a as never),
  },
  {
    name: 'tasks.create',
    method: 'post',
    path: '/v1/tasks',
    extra: {
      properties: {
        idempotency_key: idempotencyKey('one key per intended task (the Idempotency-Key header): repeating the call with the same key and arguments returns the same task'),
      },
      required: ['idempotency_key'],
    },
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description:
      'When the call carries a progress token, the tool follows the task until it is succeeded, failed or canceled, reporting queued and running as progress notifications, and returns the finished task; otherwise it returns the queued task at once.',
    call: async (c, a, ctx) => {
      const task = await c.tasks.create(pick(a, ['quote_id', 'title']) as never, { idempotencyKey: str(a.idempotency_key), signal: ctx.signal });
      if (!ctx.progress || TERMINAL.has(task.status)) return task;
      const progress = progressOf(ctx);
      progress.report(task);
      const done = await c.tasks.wait(task.id, { signal: ctx.signal, onUpdate: progress.report });
      await progress.sent();
      return done;
    },
  },
  {
    name: 'tasks.run',
    method: 'post',
    path: '/v1/quotes',
    own: {
      title: 'Run a task in one call (quote, create, wait)',
      summary: 'Run a generation in one call: quote the request, create the task from the quote (reserving its max_amount), wait for it to finish and return the task',
      scopes: ['read', 'create'],
      output: { $ref: '#/components/schemas/Task' },
    },
    extra: {
      properties: {
        idempotency_key: idempotencyKey('one key per intended task: calling again with the same key follows the task it created (no second task or charge)'),
        title: { type: 'string', minLength: 1, maxLength: 200, description: 'task title, 1 to 200 characters after trimming' },
        max_amount: {
          type: 'string',
          pattern: '^\\d{1,12}(\\.\\d{1,6})?$',
          description: 'the most this task may reserve, in CNY: a quote whose max_amount is higher is refused (QUOTE_ABOVE_LIMIT) and nothing is created',
        },
      },
      required: ['idempotency_key'],
    },
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description:
      `The arguments are the quote's (model, capability, input, options) plus idempotency_key, title and max_amount. With a progress token it reports queued and running as progress notifications. It returns the task once it is succeeded, failed or canceled (and settled); a task still going after ${RUN_WAIT_S} s is returned as it is, to follow with tasks.get`,
    call: async (c, a, ctx) => {
      const progress = progressOf(ctx);
      try {
        return await c.run(str(a.model), (a.input ?? {}) as Record<string, unknown>, {
          capability: str(a.capability),
          ...(a.options !== undefined ? { options: a.options as Record<string, unknown> } : {}),
          ...(a.currency !== undefined ? { currency: a.currency as 'CNY' } : {}),
          ...(a.title !== undefined ? { title: str(a.title) } : {}),
          ...(a.max_amount !== undefined ? { maxAmount: str(a.max_amount) } : {}),
          idempotencyKey: str(a.idempotency_key),
          timeoutMs: RUN_WAIT_S * 1000,
          onCreated: progress.report,
          onUpdate: progress.report,
          signal: ctx.signal,
        });
      } catch (err) {
        // The task is the result however it ended, or as it is after the wait.
        if (err instanceof TaskFailedError || err instanceof TaskCanceledError || (err instanceof TimeoutError && err.task)) return err.task;
        throw err;
      } finally {
        await progress.sent();
      }
    },
  },
  { name: 'tasks.get', method: 'get', path: '/v1/tasks/{id}', id: 'id', hints: READ, call: (c, a) => c.tasks.get(str(a.id)) },
  { name: 'tasks.list', method: 'get', path: '/v1/tasks', hints: READ, call: (c, a) => c.tasks.list(a as never) },
  {
    name: 'tasks.cancel',
    method: 'post',
    path: '/v1/tasks/{id}/cancel',
    id: 'id',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    call: (c, a) => c.tasks.cancel(str(a.id)),
  },
  { name: 'wallet.get', method: 'get', path: '/v1/wallet', hints: READ, call: (c) => c.wallet.get() },
  { name: 'billing.list', method: 'get', path: '/v1/billing', hints: READ, call: (c, a) => c.billing.list(a as never) },
  {
    name: 'assets.upload.prepare',
    method: 'post',
    path: '/v1/uploads/prepare',
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description: 'Then PUT the file bytes to upload.url with upload.headers (the X-Upload-Token is the credential of that one file), then call assets.upload.complete.',
    call: (c, a) => c.uploads.prepare(a as never),
  },
  {
    name: 'assets.upload.complete',
    method: 'post',
    path: '/v1/uploads/{id}/complete',
    id: 'upload_id',
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    call: (c, a) => c.uploads.complete(str(a.upload_id)),
  },
  { name: 'assets.upload.get', method: 'get', path: '/v1/uploads/{id}', id: 'upload_id', hints: READ, call: (c, a) => c.uploads.get(str(a.upload_id)) },
  {
    name: 'assets.import',
    method: 'post',
    path: '/v1/uploads/import',
    // The service fetches a public HTTPS address: an open world, and each call imports again.
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    call: (c, a) => c.uploads.import(a as never),
  },
  { name: 'assets.get', method: 'get', path: '/v1/assets/{id}', id: 'id', hints: READ, call: (c, a) => c.assets.get(str(a.id)) },
  {
    name: 'assets.delete',
    method: 'delete',
    path: '/v1/assets/{id}',
    id: 'id',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    call: (c, a) => c.assets.delete(str(a.id)),
  },
  { name: 'voices.list', method: 'get', path: '/v1/voices', hints: READ, call: (c, a) => c.voices.list(a as never) },
  { name: 'voices.get', method: 'get', path: '/v1/voices/{id}', id: 'id', hints: READ, call: (c, a) => c.voices.get(str(a.id)) },
  {
    name: 'voices.delete',
    method: 'delete',
    path: '/v1/voices/{id}',
    id: 'id',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    call: (c, a) => c.voices.delete(str(a.id)),
  },
];

/** Keywords of OpenAPI that are not JSON Schema (dropped from tool schemas). */
const OPENAPI_ONLY = new Set(['example', 'xml', 'discriminator', 'externalDocs', 'nullable', 'readOnly', 'writeOnly', 'deprecated']);

/** A schema with every `#/components/schemas/...` reference replaced by its target (self-contained). */
export function inlineSchema(doc: OpenApiDocument, schema: JsonSchema, seen: string[] = []): JsonSchema {
  const walk = (v: unknown, trail: string[]): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, trail));
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    if (typeof o.$ref === 'string') {
      const name = /^#\/components\/schemas\/(.+)$/.exec(o.$ref)?.[1];
      const target = name ? doc.components.schemas[name] : undefined;
      if (!name || !target) throw new Error(`unresolvable $ref ${o.$ref}`);
      if (trail.includes(name)) return {}; // a recursive schema: leave the inner level open
      const { $ref: _ref, ...siblings } = o;
      const resolved = walk(target, [...trail, name]) as Record<string, unknown>;
      return Object.keys(siblings).length ? { allOf: [resolved, walk(siblings, trail)] } : resolved;
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      if (OPENAPI_ONLY.has(k)) continue;
      // Property maps hold names, not keywords: keep every name.
      out[k] = k === 'properties' || k === 'patternProperties' || k === '$defs' ? Object.fromEntries(Object.entries(x as Record<string, unknown>).map(([p, s]) => [p, walk(s, trail)])) : walk(x, trail);
    }
    return out;
  };
  return walk(schema, seen) as JsonSchema;
}

function operation(doc: OpenApiDocument, method: string, path: string): OpenApiOperation {
  const op = doc.paths[path]?.[method] as OpenApiOperation | undefined;
  if (!op?.operationId) throw new Error(`the OpenAPI document has no ${method.toUpperCase()} ${path}`);
  return op;
}

function scopesOf(op: OpenApiOperation): ToolScope[] {
  for (const requirement of op.security ?? []) {
    const scopes = requirement.oauth2;
    if (scopes?.length) return scopes as ToolScope[];
  }
  return [];
}

function build(doc: OpenApiDocument, spec: Spec): ToolDefinition {
  const op = operation(doc, spec.method, spec.path);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const queryKeys: string[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in === 'path' && spec.id) {
      properties[spec.id] = { ...inlineSchema(doc, p.schema ?? { type: 'string' }), description: spec.id === 'upload_id' ? 'the upload id (up_...)' : `the ${spec.name.split('.')[0].replace(/s$/, '')} id` };
      required.push(spec.id);
    }
    if (p.in === 'query') {
      properties[p.name] = { ...inlineSchema(doc, p.schema ?? {}), ...(p.description ? { description: p.description } : {}) };
      queryKeys.push(p.name);
      if (p.required) required.push(p.name);
    }
  }
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    const body = inlineSchema(doc, bodySchema) as { properties?: Record<string, JsonSchema>; required?: string[] };
    Object.assign(properties, body.properties ?? {});
    required.push(...(body.required ?? []));
  }
  if (spec.extra) {
    Object.assign(properties, spec.extra.properties);
    required.push(...spec.extra.required);
  }
  const ok = Object.entries(op.responses ?? {}).find(([status]) => /^2\d\d$/.test(status));
  const outSchema = spec.own?.output ?? ok?.[1].content?.['application/json']?.schema;
  if (!outSchema) throw new Error(`${op.operationId} has no JSON success response`);
  const outputSchema = inlineSchema(doc, outSchema) as JsonSchema & { type: 'object' };
  const description = [spec.own?.summary ?? op.summary, spec.own ? undefined : op.description, spec.description].filter(Boolean).join('. ').replace(/\.\./g, '.');
  const allowed = new Set(Object.keys(properties));
  return {
    name: spec.name,
    description,
    ...(spec.own ? {} : { operationId: op.operationId }),
    scopes: spec.own?.scopes ?? scopesOf(op),
    inputSchema: { type: 'object', properties, ...(required.length ? { required: [...new Set(required)] } : {}), additionalProperties: false },
    outputSchema,
    annotations: { title: spec.own?.title ?? op.summary ?? spec.name, ...spec.hints },
    async run(client, args, context) {
      const unknown = Object.keys(args).filter((k) => !allowed.has(k));
      if (unknown.length) throw new ToolInputError(`unknown argument${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
      const missing = required.filter((k) => args[k] === undefined || args[k] === null);
      if (missing.length) throw new ToolInputError(`missing argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
      return (await spec.call(client, args, context)) as Record<string, unknown>;
    },
  };
}

/** The tools of every agent operation, built from an OpenAPI document (default: the SDK's own copy). */
export function apiTools(doc: OpenApiDocument = servedDocument): ToolDefinition[] {
  return SPECS.map((s) => build(doc, s));
}

/** The names of the API tools, in order. */
export const API_TOOL_NAMES = SPECS.map((s) => s.name);
