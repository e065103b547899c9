import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, type DiscoveryService, type Reflector } from '@nestjs/core';
import { ACCESS_RULE, type AccessRule } from './auth';

/** One HTTP route of a controller, with the access rule it declares. */
export interface DiscoveredRoute {
  readonly method: string;
  /** Express-style path, e.g. `/v1/tasks/:id`. */
  readonly path: string;
  readonly controller: Function; // eslint-disable-line @typescript-eslint/no-unsafe-function-type
  readonly handler: string;
  /** The declared access rule, or undefined when the route declares none. */
  readonly rule: AccessRule | undefined;
}

const joinPath = (...parts: string[]) => '/' + parts.flatMap((p) => p.split('/')).filter(Boolean).join('/');

/** Every HTTP route of the discovered controllers, in discovery order. */
export function discoverRoutes(discovery: DiscoveryService, reflector: Reflector, scanner: MetadataScanner = new MetadataScanner()): DiscoveredRoute[] {
  const routes: DiscoveredRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const metatype = wrapper.metatype as (new (...a: unknown[]) => unknown) | undefined;
    if (!metatype?.prototype) continue;
    const bases = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, metatype) ?? '');
    for (const name of scanner.getAllMethodNames(metatype.prototype)) {
      const handler = (metatype.prototype as Record<string, unknown>)[name];
      if (typeof handler !== 'function') continue;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod] ?? 'GET';
      const rule = reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [handler, metatype]);
      for (const b of bases) for (const p of ([] as string[]).concat(paths)) routes.push({ method, path: joinPath(b, p), controller: metatype, handler: name, rule });
    }
  }
  return routes;
}
