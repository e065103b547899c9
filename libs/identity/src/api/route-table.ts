import { RequestMethod, type INestApplicationContext } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { AccessRule } from '@gensvc/shared';
import { accessRuleOf } from './access.guard';

export interface RouteEntry {
  readonly method: string;
  /** Express-style path, e.g. `/v1/tasks/:id`. */
  readonly path: string;
  readonly controller: string;
  readonly handler: string;
  /** The declared access rule, or undefined when the route declares none (a bug). */
  readonly rule: AccessRule | undefined;
}

const join = (...parts: string[]) => '/' + parts.flatMap((p) => p.split('/')).filter(Boolean).join('/');

/** Every HTTP route of the composed app's controllers with its declared access rule. */
export function routeTable(app: INestApplicationContext): RouteEntry[] {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner, { strict: false }) ?? new MetadataScanner();
  const reflector = app.get(Reflector);
  const routes: RouteEntry[] = [];
  for (const wrapper of discovery.getControllers()) {
    const metatype = wrapper.metatype as (new (...a: unknown[]) => unknown) | undefined;
    if (!metatype?.prototype) continue;
    const base = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, metatype) ?? '');
    for (const name of scanner.getAllMethodNames(metatype.prototype)) {
      const handler = (metatype.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function') continue;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod] ?? 'GET';
      for (const b of base) {
        for (const p of ([] as string[]).concat(paths)) {
          routes.push({ method, path: join(b, p), controller: metatype.name, handler: name, rule: accessRuleOf(reflector, handler, metatype) });
        }
      }
    }
  }
  return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}
