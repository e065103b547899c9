import { Module } from '@nestjs/common';
import { McpController } from './mcp.controller';

/** The agent tools over MCP Streamable HTTP at /mcp, and the protected-resource metadata. */
@Module({ controllers: [McpController] })
export class McpModule {}
