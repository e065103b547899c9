import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '@gensvc/config';
import { SharedCounters } from '@gensvc/http';
import { composeContexts, type ContextOverrides } from './compose-contexts';
import type { RequestDeadlines } from './http/body-deadline';
import { errorStatus } from './http/error-status';
import { McpModule } from './mcp/mcp.module';
import { OpenApiModule } from './openapi/openapi.module';
import { RateLimitGuard, SharedCountersThrottlerStorage, throttlerOptions } from './rate-limit/rate-limit.guard';

export interface AppOverrides extends ContextOverrides {
  /** Shorter request deadlines for tests (apps/api/src/http/body-deadline.ts; never shortened in production). */
  deadlines?: Partial<RequestDeadlines>;
}

/**
 * The HTTP service: the context modules as `composeContexts` builds them (the admin CLI uses
 * the same composition), plus what is the API's own: the operations context's HTTP part
 * (health routes, request metrics, the admin endpoint), the rate limits, the OpenAPI document
 * and the MCP endpoint. Owns no business logic, and no module is global.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: AppOverrides = {}): DynamicModule {
    const contexts = composeContexts(config, { overrides, operations: { http: true, errorStatus } });
    const { storage, counters, identity } = contexts;
    return {
      module: AppModule,
      imports: [
        ...contexts.modules,
        ThrottlerModule.forRootAsync({
          imports: [storage, counters],
          inject: [AppConfig, SharedCounters],
          useFactory: (c: AppConfig, shared: SharedCounters) => throttlerOptions(c, new SharedCountersThrottlerStorage(shared)),
        }),
        OpenApiModule.register({ imports: [storage] }),
        McpModule.register({ imports: [storage, identity] }),
      ],
      // Registered on the root module, so it runs before the access guard of the identity
      // context; it injects the configuration, the counters and identity's Authenticator.
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    };
  }
}
