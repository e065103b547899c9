import type { ModuleMetadata } from '@nestjs/common';

/**
 * What a context's Nest module needs from the modules an app composes: the app's
 * `StorageModule` (configuration, clock, stores, subscription engine) and the modules of the
 * contexts whose contract ports it injects. No module is global: a context module imports
 * exactly these, so its dependencies show where the app composes it, and every module gets
 * the same instances (the app builds each dynamic module once and passes that object).
 */
export interface ModuleDependencies {
  readonly imports: NonNullable<ModuleMetadata['imports']>;
}
