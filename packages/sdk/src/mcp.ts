/**
 * An MCP server of the gensvc tools (`@gensvc/sdk/mcp`), for any transport: the CLI connects it
 * to stdio, the service to Streamable HTTP. Needs `@modelcontextprotocol/sdk`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Gensvc } from './client.js';
import { SDK_VERSION } from './client.js';
import { toolError, type ToolDefinition } from './tools.js';

export interface McpServerOptions {
  /** The client the tools call the API with (its credential is the caller's). */
  client: Gensvc;
  tools: ToolDefinition[];
  /**
   * The scopes the caller's credential has, when known (OAuth tokens): the tool list shows only
   * the tools those scopes allow (a read-only token sees no tool that writes), and a call of
   * another tool answers INSUFFICIENT_SCOPE without calling the API.
   */
  scopes?: readonly string[];
  name?: string;
  version?: string;
  instructions?: string;
}

const INSTRUCTIONS =
  'Tools of the gensvc generation service. Typical flow: models.list / models.get (input_schema) → tasks.run (quote, create and wait in one call, with a fresh idempotency_key and a max_amount the task may reserve; call it again with the same key to follow the same task) → assets.get for the output links. Step by step: quotes.create → tasks.create → tasks.get until succeeded. Amounts are CNY strings. Errors come back as the API error object {"error":{"code","message","request_id"}} with isError.';

/** A low-level MCP server (JSON Schema tools need it) whose tools run through the SDK client. */
export function createMcpServer(o: McpServerOptions): Server {
  const server = new Server(
    { name: o.name ?? 'gensvc', version: o.version ?? SDK_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: o.instructions ?? INSTRUCTIONS },
  );
  const byName = new Map(o.tools.map((t) => [t.name, t]));
  const missingScopes = (t: ToolDefinition) => (o.scopes ? t.scopes.filter((s) => !o.scopes!.includes(s)) : []);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: o.tools.filter((t) => missingScopes(t).length === 0).map((t) => ({
      name: t.name,
      title: t.annotations.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
    const fail = (body: ReturnType<typeof toolError>): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(body) }], isError: true });
    const missing = missingScopes(tool);
    if (missing.length) return fail({ error: { code: 'INSUFFICIENT_SCOPE', message: `${tool.name} needs the ${missing.join(' and ')} scope` } });
    const token = request.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : async (value: number, total: number | undefined, message: string) => {
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: value, ...(total !== undefined ? { total } : {}), message } });
          };
    try {
      const result = await tool.run(o.client, (request.params.arguments ?? {}) as Record<string, unknown>, { progress, signal: extra.signal });
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (err) {
      return fail(toolError(err));
    }
  });
  return server;
}
