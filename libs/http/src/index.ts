/**
 * HTTP and Nest helpers: the access rule every route declares, route discovery, the
 * OpenAPI operation shape, module dependencies, the outbound address guard and the shared
 * counters behind rate limits.
 */
export * from './auth';
export * from './route-discovery';
export * from './openapi-operation';
export * from './module-dependencies';
export * from './address-guard';
export * from './shared-counters';
