import type { ErrorCode } from '@gensvc/kernel';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/** A query or header parameter of an operation. */
export interface OpenApiParameter {
  readonly name: string;
  readonly required?: boolean;
  readonly description: string;
  readonly schema: JsonSchema;
}

/**
 * What the code cannot say by itself about one operation, declared beside its handler (a
 * controller's `*.openapi.ts`): its answers, raw inputs and error codes. Routes, methods,
 * path parameters, security and DTO bodies come from the routes themselves; the document is
 * assembled by `apps/api/src/openapi`.
 */
export interface OperationDoc {
  /** The agent-tool or resource name; `@Operation`/`@ApiOperation` metadata on the handler wins. */
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  /** Success answers (and non-API answers such as HTML pages) by status. */
  readonly responses: Record<number, { description: string; schema?: JsonSchema; content?: 'json' | 'binary' | 'html' | 'sse' | 'none'; headers?: Record<string, JsonSchema> }>;
  /** Error codes the operation can answer (grouped by status in the document). */
  readonly errors: readonly ErrorCode[];
  /** Headers some error answers carry besides X-Request-Id, by status. */
  readonly errorHeaders?: Readonly<Record<number, Record<string, JsonSchema>>>;
  readonly query?: readonly OpenApiParameter[];
  readonly headers?: readonly OpenApiParameter[];
  /** A request body object the DTO does not describe (raw bytes, forms, optional bodies). */
  readonly requestBody?: JsonSchema;
  /** The component name of the `@Body()` DTO's schema, and the rules the services check beyond its decorators. */
  readonly body?: { readonly name: string; readonly refine?: Record<string, JsonSchema> };
  readonly description?: string;
}

/** A controller's operations, by handler name. */
export type ControllerOpenApi<C> = { readonly [K in keyof C]?: OperationDoc };

const OPENAPI_OPERATIONS = 'gensvc:openapi-operations';

/** Attaches a controller's operation declarations (its `*.openapi.ts`) to the controller. */
export function OpenApiOperations<C>(operations: ControllerOpenApi<C>): (target: abstract new (...args: never[]) => C) => void {
  return (target) => {
    Reflect.defineMetadata(OPENAPI_OPERATIONS, operations, target);
  };
}

/** The declaration of one handler, if its controller has one. */
export function openApiOperationOf(controller: object, handler: string): OperationDoc | undefined {
  const operations = Reflect.getMetadata(OPENAPI_OPERATIONS, controller) as Record<string, OperationDoc> | undefined;
  return operations?.[handler];
}

/** A reference to a schema of the document's components. */
export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** `page` and `limit` of every list. */
export const PAGE_PARAMETERS: readonly OpenApiParameter[] = [
  { name: 'page', description: 'page number', schema: { type: 'integer', minimum: 1, maximum: 100000, default: 1 } },
  { name: 'limit', description: 'items per page', schema: { type: 'integer', minimum: 1, maximum: 100, default: 30 } },
];

/** A JSON answer of an operation. */
export const jsonAnswer = (description: string, schema: JsonSchema) => ({ description, schema, content: 'json' as const });
