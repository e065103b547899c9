import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { OpenApiController } from './openapi.controller';

/** The published interface: the OpenAPI document of the public API. */
@Module({ imports: [DiscoveryModule], controllers: [OpenApiController] })
export class OpenApiModule {}
