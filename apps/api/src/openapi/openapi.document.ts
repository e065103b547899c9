import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { type DiscoveryService, type Reflector, type ApplicationConfig, type HttpAdapterHost, type ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { discoverRoutes, openApiOperationOf, type AccessRule, type DiscoveredRoute, type OpenApiParameter, type OperationDoc } from '@gensvc/http';
import { type ErrorCode } from '@gensvc/kernel';
import { dtoSchema, type JsonSchema } from './dto-schema';
import { ERROR_STATUS } from '../http/error-status';
import { ERROR_CODES, SCHEMAS, ref } from './schemas';

/** Interface version of the spec (CONTRACT.md §9). */
export const API_VERSION = '0.1.0';

/** The tags of the operations, in the order the document lists them. */
const TAGS: Record<string, string> = {
  Catalogue: 'Models, capabilities and prices (public)',
  Quotes: 'Price a task before creating it',
  Tasks: 'Paid asynchronous tasks: create from a quote, read, list, cancel',
  Wallet: 'Balance, reservations and the bills of tasks',
  'API keys': "The account's API keys (web console sign-in only)",
  Uploads: 'Files in: direct upload, prepared upload sessions, imports from HTTPS addresses',
  Assets: 'Stored files and their signed links',
  Voices: 'Cloned voices',
  Webhooks: 'Webhook endpoints and their deliveries',
  OAuth: 'The authorization server: authorization code with PKCE, tokens, revocation, metadata',
  MCP: 'The agent tools over the Model Context Protocol',
  Meta: 'This document',
};

/** Routes that are not part of the public API (health probes, supplier callbacks). */
const EXCLUDED = [/^\/health\//, /^\/v1\/supplier-callbacks\//];

/** The 429 answers' header, as a header object (description and schema). */
const RETRY_AFTER = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };

/** The DTO classes of a handler's `@Body()` and `@Query()` (whole-object parameters only). */
function dtoParams(route: DiscoveredRoute): { body?: Function; query?: Function } { // eslint-disable-line @typescript-eslint/no-unsafe-function-type
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, route.controller, route.handler) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const types = (Reflect.getMetadata('design:paramtypes', route.controller.prototype, route.handler) ?? []) as Function[]; // eslint-disable-line @typescript-eslint/no-unsafe-function-type
  const out: { body?: Function; query?: Function } = {}; // eslint-disable-line @typescript-eslint/no-unsafe-function-type
  for (const [key, arg] of Object.entries(args)) {
    const kind = Number(key.split(':')[0]);
    const type = types[arg.index];
    if (arg.data !== undefined || !type || [Object, String, Number, Boolean, Array].includes(type as never)) continue;
    if (kind === RouteParamtypes.BODY) out.body = type;
    if (kind === RouteParamtypes.QUERY) out.query = type;
  }
  return out;
}

/** What the builder needs from the running application. */
export interface OpenApiSources {
  readonly discovery: DiscoveryService;
  readonly reflector: Reflector;
  readonly modules: ModulesContainer;
  readonly applicationConfig: ApplicationConfig;
  readonly adapterHost: HttpAdapterHost;
  readonly publicBaseUrl: string;
}

const REQUEST_ID_HEADER = { $ref: '#/components/headers/X-Request-Id' };

function errorResponses(codes: readonly ErrorCode[], withInternal = true): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of withInternal && !codes.includes('INTERNAL') ? [...codes, 'INTERNAL' as const] : codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.join(', '),
      headers: { 'X-Request-Id': REQUEST_ID_HEADER, ...(status === 429 ? RETRY_AFTER : {}), ...(status === 401 ? { 'WWW-Authenticate': { schema: { type: 'string' } } } : {}) },
      content: {
        'application/json': {
          schema: { allOf: [ref('Error')], properties: { error: { properties: { code: { enum: list } } } } },
        },
      },
    };
  }
  return out;
}

function successResponses(doc: OperationDoc): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(doc.responses)) {
    const headers: Record<string, unknown> = { 'X-Request-Id': REQUEST_ID_HEADER };
    for (const [h, schema] of Object.entries(r.headers ?? {})) headers[h] = { schema };
    const content =
      r.content === 'none'
        ? undefined
        : r.content === 'binary'
          ? { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } }
          : r.content === 'html'
            ? { 'text/html': { schema: { type: 'string' } } }
            : r.content === 'sse'
              ? { 'text/event-stream': { schema: r.schema ?? { type: 'string', description: 'server-sent events' } } }
              : { 'application/json': { schema: r.schema ?? {} } };
    out[status] = { description: r.description, headers, ...(content ? { content } : {}) };
  }
  return out;
}

function parameter(where: 'query' | 'header' | 'path', p: OpenApiParameter): Record<string, unknown> {
  return { name: p.name, in: where, required: where === 'path' ? true : p.required === true, description: p.description, schema: p.schema };
}

function security(rule: AccessRule | undefined): Record<string, string[]>[] {
  if (!rule || rule.kind === 'public') return [];
  if (rule.kind === 'upload_token') return [{ uploadToken: [] }];
  if (rule.kind === 'console') return [{ oauth2: [rule.scope] }];
  return [{ bearer: [] }, { oauth2: [...rule.scopes] }];
}

/**
 * The OpenAPI 3.1 document of the public API, generated from the running application:
 * routes, methods, path parameters and `operationId`s (`@Operation`/`@ApiOperation`) through
 * @nestjs/swagger's scanner; security from each route's access rule; request bodies and
 * query parameters from the DTOs' class-validator rules; answers, raw bodies, headers, error
 * codes and the refinements of DTO bodies from the declaration beside each handler (its
 * controller's `*.openapi.ts`, attached with `@OpenApiOperations`); response objects from the
 * schemas (schemas.ts). A route without a declaration is listed in `x-undocumented-routes`.
 */
export function buildOpenApiDocument(sources: OpenApiSources): OpenAPIObject & { jsonSchemaDialect: string; 'x-undocumented-routes'?: string[] } {
  const app = {
    container: { getModules: () => sources.modules, isGlobalModule: () => false },
    config: sources.applicationConfig,
    getHttpAdapter: () => sources.adapterHost.httpAdapter,
  };
  const scanned = SwaggerModule.createDocument(app as never, new DocumentBuilder().setOpenAPIVersion('3.1.0').build(), {
    operationIdFactory: (controller, method) => `${controller}.${method}`,
  });

  const base = sources.publicBaseUrl.replace(/\/+$/, '');
  const schemas: Record<string, JsonSchema> = { ...SCHEMAS };
  const paths: Record<string, Record<string, unknown>> = {};
  const undocumented: string[] = [];

  for (const route of discoverRoutes(sources.discovery, sources.reflector)) {
    if (EXCLUDED.some((re) => re.test(route.path))) continue;
    const key = `${route.method} ${route.path}`;
    const doc = openApiOperationOf(route.controller, route.handler);
    if (!doc) undocumented.push(key);
    const docPath = route.path.replace(/:(\w+)/g, '{$1}');
    const method = route.method.toLowerCase();
    const scannedOp = ((scanned.paths[docPath] ?? {}) as Record<string, { operationId?: string; parameters?: { name: string; in: string }[] }>)[method];
    const declaredId = scannedOp?.operationId && !scannedOp.operationId.includes('Controller.') ? scannedOp.operationId : undefined;

    const parameters: Record<string, unknown>[] = [];
    for (const name of [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1])) {
      parameters.push(parameter('path', { name, description: `${name} of the resource`, schema: { type: 'string', minLength: 1, maxLength: 200 } }));
    }
    const dtos = dtoParams(route);
    if (dtos.query) {
      for (const [name, p] of dtoSchema(dtos.query as never).properties) parameters.push(parameter('query', { name, required: p.required, description: name, schema: p.schema }));
    }
    for (const q of doc?.query ?? []) if (!parameters.some((p) => p.name === q.name && p.in === 'query')) parameters.push(parameter('query', q));
    for (const h of doc?.headers ?? []) parameters.push(parameter('header', h));
    parameters.push(
      parameter('header', {
        name: 'X-Request-Id',
        description: 'optional; reused as the request id when it is 1 to 128 characters [A-Za-z0-9._-], otherwise replaced by a generated one (never refused)',
        schema: { type: 'string' },
      }),
    );

    let requestBody: unknown = doc?.requestBody;
    if (!requestBody && dtos.body) {
      // The DTO's rules, refined with the ones the services check themselves (declared beside the handler).
      const name = doc?.body?.name ?? dtos.body.name;
      const generated = dtoSchema(dtos.body as never).schema;
      const properties = generated.properties as Record<string, JsonSchema>;
      for (const [prop, extra] of Object.entries(doc?.body?.refine ?? {})) properties[prop] = { ...(properties[prop] ?? {}), ...extra };
      schemas[name] = generated;
      requestBody = { required: true, content: { 'application/json': { schema: ref(name) } } };
    }

    const isApi = route.path.startsWith('/v1/');
    const errorCodes = [...(doc?.errors ?? [])];
    if (isApi && route.path.includes(':') && !errorCodes.includes('NOT_FOUND')) errorCodes.push('NOT_FOUND');
    // Any body may be malformed, of another type or too large; any request may be rate limited.
    if (isApi && requestBody) for (const c of ['VALIDATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'] as const) if (!errorCodes.includes(c)) errorCodes.push(c);
    if (isApi && !errorCodes.includes('RATE_LIMITED')) errorCodes.push('RATE_LIMITED');
    const responses: Record<string, unknown> = {
      ...successResponses(doc ?? { operationId: '', summary: '', tag: '', responses: { 200: { description: 'success' } }, errors: [] }),
      ...(isApi ? errorResponses(errorCodes) : {}),
    };
    for (const [status, headers] of Object.entries(doc?.errorHeaders ?? {})) {
      const answer = responses[status] as { headers: Record<string, unknown> } | undefined;
      for (const [h, schema] of Object.entries(headers)) if (answer) answer.headers[h] = { schema };
    }
    // The rate limits cover every route, not only /v1 (an operation's own 429, e.g. a sign-in page, keeps its content beside the error object).
    if (!isApi) {
      const limited = errorResponses(['RATE_LIMITED'], false)['429'] as { description: string; headers: object; content: object };
      const own = responses['429'] as { description: string; headers: object; content?: object } | undefined;
      responses['429'] = own
        ? { description: `${own.description}; or RATE_LIMITED`, headers: { ...limited.headers, ...own.headers }, content: { ...own.content, ...limited.content } }
        : limited;
    }

    (paths[docPath] ??= {})[method] = {
      operationId: declaredId ?? doc?.operationId ?? `${route.controller.name}.${route.handler}`,
      summary: doc?.summary,
      ...(doc?.description ? { description: doc.description } : {}),
      tags: [doc?.tag ?? 'Other'],
      security: security(route.rule),
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }

  const document = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'gensvc: asynchronous generation service API',
      version: API_VERSION,
      description:
        'Public catalogue, quotes, paid asynchronous tasks, uploads and assets with signed links, voices, wallet and bills. ' +
        'Every response carries X-Request-Id; every error is exactly {"error": {"code", "message", "request_id"}}. ' +
        'Amounts are CNY strings with six decimals; times are RFC 3339 UTC.',
    },
    servers: [{ url: base }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas,
      headers: {
        'X-Request-Id': { description: 'the request id (equals an error\'s request_id)', schema: { type: 'string' }, required: true },
        'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 1 }, required: true },
      },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Account API key (both scopes) or OAuth access token: Authorization: Bearer <API_KEY>' },
        oauth2: {
          type: 'oauth2',
          description: 'Authorization code with PKCE (S256, required for public clients); create does not imply read.',
          flows: {
            authorizationCode: {
              authorizationUrl: `${base}/authorize`,
              tokenUrl: `${base}/token`,
              refreshUrl: `${base}/token`,
              scopes: { read: 'read account, models, quotes and resources', create: 'create paid tasks and manage assets' },
            },
          },
        },
        uploadToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Upload-Token',
          description: 'From prepare; valid only for that one file and only for PUT /v1/uploads/{id}/content. Never log it.',
        },
      },
    },
    'x-error-codes': ERROR_CODES,
    ...(undocumented.length ? { 'x-undocumented-routes': undocumented } : {}),
  };
  return document as unknown as OpenAPIObject & { jsonSchemaDialect: string };
}
