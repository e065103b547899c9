import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { createAccount, type TestAccount } from './support/accounts';
import { CLIENT_CLI, buildClientCli } from './support/operations-cli';
import { startServedApp } from './support/served-app';

const FIXTURES = join(__dirname, 'fixtures');
const API_TOOLS = [
  'models.list', 'models.get', 'quotes.create', 'tasks.create', 'tasks.run', 'tasks.get', 'tasks.list', 'tasks.cancel', 'wallet.get', 'billing.list',
  'assets.upload.prepare', 'assets.upload.complete', 'assets.upload.get', 'assets.import', 'assets.get', 'assets.delete', 'voices.list', 'voices.get', 'voices.delete',
];

/** `gensvc mcp` (stdio) driven by the official MCP client, as a local agent runs it. */
describe('gensvc mcp over stdio', () => {
  let t: Awaited<ReturnType<typeof startServedApp>>;
  let account: TestAccount;
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    buildClientCli();
    t = await startServedApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '1500' } });
    account = await createAccount(t, { name: 'agent', credit: '20.00' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLIENT_CLI, 'mcp'],
      env: { PATH: process.env.PATH ?? '', GENSVC_BASE_URL: t.baseUrl, GENSVC_API_KEY: account.apiKey },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d) => (stderr += d));
    client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await client.connect(transport);
  }, 600_000);

  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const call = (name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void) =>
    client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress, resetTimeoutOnProgress: true } : undefined) as Promise<CallToolResult>;

  it('lists every tool with its schemas and truthful annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([...API_TOOLS, 'assets.upload.file'].sort());
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(10);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const byName = Object.fromEntries(tools.map((x) => [x.name, x]));
    expect(byName['tasks.get'].annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName['assets.delete'].annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName['tasks.create'].annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(byName['assets.import'].annotations).toMatchObject({ idempotentHint: false, openWorldHint: true });
    // Input schemas are the API's request schemas: body fields, query parameters, path id.
    expect(byName['tasks.create'].inputSchema).toMatchObject({ required: expect.arrayContaining(['quote_id', 'idempotency_key']), properties: { title: { maxLength: 200 } } });
    expect(byName['assets.upload.prepare'].inputSchema.properties).toMatchObject({ checksum: { pattern: '^[a-f0-9]{64}$' }, size: { maximum: 67108864 } });
    expect(byName['tasks.list'].inputSchema.properties).toMatchObject({ limit: { maximum: 100 }, status: { enum: expect.arrayContaining(['queued']) } });
    expect(byName['assets.upload.get'].inputSchema.required).toEqual(['upload_id']);
    expect(byName['assets.upload.file'].inputSchema).toMatchObject({ required: ['path'] });
  });

  it('runs a task: quote → create (progress while it runs) → get', async () => {
    const quote = await call('quotes.create', { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'a fox' } });
    expect(quote.isError).toBeFalsy();
    const quoteId = (quote.structuredContent as { quote_id: string }).quote_id;
    expect(JSON.parse((quote.content[0] as { text: string }).text)).toEqual(quote.structuredContent);
    const progress: Progress[] = [];
    const created = await call('tasks.create', { quote_id: quoteId, title: 'from an agent', idempotency_key: 'agent-task-0001' }, (p) => progress.push(p));
    expect(created.isError).toBeFalsy();
    const task = created.structuredContent as { id: string; status: string; title: string };
    expect(task).toMatchObject({ status: 'succeeded', title: 'from an agent' });
    // queued (1 of 3), running (2 of 3: it runs 1.5 s, polled at least every second); the finished task is the result.
    expect(progress).toEqual([
      { progress: 1, total: 3, message: `${task.id}: queued` },
      { progress: 2, total: 3, message: `${task.id}: running` },
    ]);
    const got = await call('tasks.get', { id: task.id });
    expect(got.structuredContent).toMatchObject({ id: task.id, status: 'succeeded', settlement_status: 'settled' });
    // The same idempotency key again: the same task, nothing charged twice.
    const again = await call('tasks.create', { quote_id: quoteId, title: 'from an agent', idempotency_key: 'agent-task-0001' });
    expect((again.structuredContent as { id: string }).id).toBe(task.id);
    const wallet = await call('wallet.get', {});
    expect(wallet.structuredContent).toMatchObject({ balance: '19.980000' });
  });

  it('tasks.run quotes, creates and waits in one call, with progress; the same key follows the same task; a dearer quote is refused', async () => {
    const { tools } = await client.listTools();
    const run = tools.find((x) => x.name === 'tasks.run')!;
    expect(run.inputSchema).toMatchObject({
      required: expect.arrayContaining(['model', 'capability', 'input', 'idempotency_key']),
      properties: { max_amount: { pattern: expect.any(String) }, title: { maxLength: 200 }, options: expect.any(Object) },
    });
    expect(run.outputSchema?.properties).toHaveProperty('settlement_status');
    expect(run.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });

    const before = (await call('wallet.get', {})).structuredContent as { balance: string };
    const args = { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'one call' }, idempotency_key: 'agent-run-0001', title: 'one call', max_amount: '0.5' };
    const progress: Progress[] = [];
    const done = await call('tasks.run', args, (p) => progress.push(p));
    expect(done.isError).toBeFalsy();
    const task = done.structuredContent as { id: string; status: string; settlement_status: string; charged_amount: string; title: string };
    expect(task).toMatchObject({ status: 'succeeded', settlement_status: 'settled', title: 'one call' });
    expect(progress).toEqual([
      { progress: 1, total: 3, message: `${task.id}: queued` },
      { progress: 2, total: 3, message: `${task.id}: running` },
    ]);
    const again = await call('tasks.run', args);
    expect((again.structuredContent as { id: string }).id).toBe(task.id);
    const after = (await call('wallet.get', {})).structuredContent as { balance: string };
    expect(Number(before.balance) - Number(after.balance)).toBeCloseTo(Number(task.charged_amount), 6); // charged once

    const listed = async () => ((await call('tasks.list', { limit: 100 })).structuredContent as { data: unknown[] }).data.length;
    const count = await listed();
    const refused = await call('tasks.run', { model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'x', count: 4 }, idempotency_key: 'agent-run-0002', max_amount: '0.01' });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content[0] as { text: string }).text).error).toMatchObject({ code: 'QUOTE_ABOVE_LIMIT', message: expect.stringContaining('above the limit of 0.01 CNY') });
    expect(await listed()).toBe(count);
  });

  it('uploads a local file with assets.upload.file, reporting byte progress', async () => {
    const path = join(FIXTURES, 'image.png');
    const progress: Progress[] = [];
    const up = await call('assets.upload.file', { path }, (p) => progress.push(p));
    expect(up.isError).toBeFalsy();
    expect(up.structuredContent).toMatchObject({ status: 'completed', mime: 'image/png', checksum: createHash('sha256').update(readFileSync(path)).digest('hex') });
    expect(up.structuredContent).not.toHaveProperty('upload'); // no upload token in the answer
    expect(progress[progress.length - 1]).toMatchObject({ progress: readFileSync(path).length, total: readFileSync(path).length });
    const asset = await call('assets.get', { id: (up.structuredContent as { asset_id: string }).asset_id });
    expect(asset.structuredContent).toMatchObject({ mime: 'image/png', download_url: expect.stringContaining(t.baseUrl) });
    const missing = await call('assets.upload.file', { path: join(FIXTURES, 'no-such-file.png') });
    expect(missing.isError).toBe(true);
    expect(JSON.parse((missing.content[0] as { text: string }).text).error.message).toContain('no-such-file.png');
  });

  it('returns an API error as a tool result with isError and the error object', async () => {
    const res = await call('tasks.get', { id: 'task_doesnotexist' });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toBeUndefined();
    expect(JSON.parse((res.content[0] as { text: string }).text)).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String), request_id: expect.stringMatching(/^req_/) } });
    // Model validation is the API's: its code comes back.
    const bad = await call('quotes.create', { model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'x', size: '3x3' } });
    expect(JSON.parse((bad.content[0] as { text: string }).text).error.code).toBe('VALIDATION_ERROR');
    const unknown = await call('tasks.get', { id: 'task_x', extra: 1 });
    expect(JSON.parse((unknown.content[0] as { text: string }).text).error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'unknown argument: extra' });
    expect(stderr).not.toContain(account.apiKey);
  });
});
