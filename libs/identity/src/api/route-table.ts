import type { INestApplicationContext } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { discoverRoutes, type AccessRule } from '@gensvc/http';

export interface RouteEntry {
  readonly method: string;
  /** Express-style path, e.g. `/v1/tasks/:id`. */
  readonly path: string;
  readonly controller: string;
  readonly handler: string;
  /** The declared access rule, or undefined when the route declares none (a bug). */
  readonly rule: AccessRule | undefined;
}

/** Every HTTP route of the composed app's controllers with its declared access rule. */
export function routeTable(app: INestApplicationContext): RouteEntry[] {
  return discoverRoutes(app.get(DiscoveryService), app.get(Reflector), new MetadataScanner())
    .map((r) => ({ method: r.method, path: r.path, controller: r.controller.name, handler: r.handler, rule: r.rule }))
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}
