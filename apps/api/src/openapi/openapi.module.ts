import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { ModuleDependencies } from '@gensvc/http';
import { OpenApiController } from './openapi.controller';

/** The published interface: the OpenAPI document of the public API. Imports: the storage module (`AppConfig`). */
@Module({})
export class OpenApiModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return { module: OpenApiModule, imports: [DiscoveryModule, ...deps.imports], controllers: [OpenApiController] };
  }
}
