import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApplicationConfig, DiscoveryService, HttpAdapterHost, ModulesContainer, Reflector } from '@nestjs/core';
import { AppConfig } from '@gensvc/config';
import { OpenApiOperations, Public } from '@gensvc/http';
import { buildOpenApiDocument } from './openapi.document';
import { OPENAPI_JSON_OPENAPI } from './openapi-json.openapi';

/** `GET /v1/openapi.json`: the OpenAPI 3.1 document, built from the running app on first use. */
@Controller('v1')
@OpenApiOperations(OPENAPI_JSON_OPENAPI)
export class OpenApiController {
  private document: unknown;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly modules: ModulesContainer,
    private readonly applicationConfig: ApplicationConfig,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  @Get('openapi.json')
  @Public()
  @Header('Cache-Control', 'public, max-age=300')
  get(): unknown {
    this.document ??= buildOpenApiDocument({
      discovery: this.discovery,
      reflector: this.reflector,
      modules: this.modules,
      applicationConfig: this.applicationConfig,
      adapterHost: this.adapterHost,
      publicBaseUrl: this.config.publicBaseUrl,
    });
    return this.document;
  }
}
