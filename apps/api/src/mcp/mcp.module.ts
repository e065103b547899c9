import { Module, type DynamicModule } from '@nestjs/common';
import type { ModuleDependencies } from '@gensvc/http';
import { McpController } from './mcp.controller';

/**
 * The agent tools over MCP Streamable HTTP at /mcp, and the protected-resource metadata.
 * Imports: the storage module (`AppConfig`) and identity (`Authenticator`).
 */
@Module({})
export class McpModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return { module: McpModule, imports: deps.imports, controllers: [McpController] };
  }
}
