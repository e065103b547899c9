import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SDK_VERSION, type Gensvc } from '@gensvc/sdk';
import { createMcpServer } from '@gensvc/sdk/mcp';
import { uploadFileTool } from '@gensvc/sdk/node';
import { apiTools } from '@gensvc/sdk/tools';

/**
 * `gensvc mcp`: the gensvc tools for a local agent over stdio (stdout carries only the
 * protocol; nothing else is printed there). Every API tool, plus `assets.upload.file`, which
 * reads a local file. Runs until the client closes stdin.
 */
export async function serveMcp(client: Gensvc): Promise<void> {
  const server = createMcpServer({ client, tools: [...apiTools(), uploadFileTool()], name: 'gensvc', version: SDK_VERSION });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  process.stdin.on('end', () => void server.close());
  await closed;
}
