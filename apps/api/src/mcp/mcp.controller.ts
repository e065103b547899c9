import { Controller, Get, Header, Inject, Post, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AppConfig } from '@gensvc/config';
import { AppError } from '@gensvc/kernel';
import { OpenApiOperations, Public, SCOPES } from '@gensvc/http';
import { Authenticator } from '@gensvc/identity';
import { Gensvc, SDK_VERSION } from '@gensvc/sdk';
import { createMcpServer } from '@gensvc/sdk/mcp';
import { apiTools, type ToolDefinition } from '@gensvc/sdk/tools';
import { forceNoStore } from '../http/no-store';
import { MCP_OPENAPI } from './mcp.openapi';

/**
 * `/mcp`: the agent tools for remote agents over MCP Streamable HTTP (stateless: one server and
 * transport per request; results stream as SSE so progress notifications reach the caller).
 * The caller's bearer credential (API key or OAuth access token) is checked here and then used
 * for every API call the tools make, against this same service: the tools see exactly what
 * the caller may see, with the API's own validation, scopes and limits. A tool whose scope the
 * token lacks answers INSUFFICIENT_SCOPE without calling the API.
 *
 * Stateless, so only POST is served: GET (a standalone SSE stream) and DELETE (ending a
 * session) answer 405 with `Allow: POST`, as any other method a route does not take.
 *
 * `/.well-known/oauth-protected-resource[/mcp]`: the protected-resource metadata (RFC 9728)
 * that the 401's `WWW-Authenticate` names, so an MCP client finds our authorization server.
 */
@Controller()
@OpenApiOperations(MCP_OPENAPI)
export class McpController {
  private readonly tools: ToolDefinition[] = apiTools();

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly auth: Authenticator,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  private get resource(): string {
    return `${this.config.publicBaseUrl}/mcp`;
  }

  private get metadataUrl(): string {
    return `${this.config.publicBaseUrl}/.well-known/oauth-protected-resource/mcp`;
  }

  @Get('.well-known/oauth-protected-resource')
  @Public()
  @Header('Cache-Control', 'public, max-age=300')
  metadata(): Record<string, unknown> {
    return this.resourceMetadata();
  }

  /** The same metadata at its path-specific address (RFC 9728 §3.1). */
  @Get('.well-known/oauth-protected-resource/mcp')
  @Public()
  @Header('Cache-Control', 'public, max-age=300')
  metadataAtPath(): Record<string, unknown> {
    return this.resourceMetadata();
  }

  private resourceMetadata(): Record<string, unknown> {
    return {
      resource: this.resource,
      authorization_servers: [this.config.publicBaseUrl],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'gensvc agent tools (MCP)',
      resource_documentation: `${this.config.publicBaseUrl}/v1/openapi.json`,
    };
  }

  @Post('mcp')
  @Public() // checked below, to answer with the RFC 9728 challenge
  async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    const header = req.headers.authorization ?? '';
    const token = /^Bearer +(\S+)$/i.exec(header)?.[1];
    const principal = token ? await this.auth.verifyBearer(token) : null;
    if (!token || !principal) {
      throw new AppError('UNAUTHORIZED', 'a valid API key or access token is required (Authorization: Bearer)', {
        'WWW-Authenticate': `Bearer resource_metadata="${this.metadataUrl}"${token ? ', error="invalid_token"' : ''}`,
      });
    }
    const client = new Gensvc({ baseUrl: this.selfUrl(), apiKey: token, maxRetries: 0, headers: { 'User-Agent': `gensvc-mcp/${SDK_VERSION}` } });
    const server = createMcpServer({ client, tools: this.tools, scopes: principal.scopes });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    forceNoStore(res);
    await transport.handleRequest(req, res, req.body);
  }

  /** This process's own listening address (loopback when it listens on every interface). */
  private selfUrl(): string {
    const address = this.adapterHost.httpAdapter.getHttpServer().address() as AddressInfo | string | null;
    if (!address || typeof address === 'string') return this.config.publicBaseUrl;
    const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }
}
