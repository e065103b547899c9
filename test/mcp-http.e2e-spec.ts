import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { authorizeInBrowser, createAccount, createOAuthClient, oauthToken, type TestAccount } from './support/accounts';
import { startServedApp } from './support/served-app';

const FIXTURES = join(__dirname, 'fixtures');

/** `/mcp` (Streamable HTTP) on the service, driven by the official MCP client, as a remote agent uses it. */
describe('/mcp over Streamable HTTP', () => {
  let t: Awaited<ReturnType<typeof startServedApp>>;
  let account: TestAccount;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startServedApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '1500' } });
    account = await createAccount(t, { name: 'remote agent', credit: '20.00', email: 'agent@example.com', password: 'agent password 1' });
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await t?.close();
  });

  async function connect(credential: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } });
    const client = new Client({ name: 'remote-agent', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const call = (client: Client, name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void) =>
    client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined) as Promise<CallToolResult>;
  const errorOf = (res: CallToolResult) => JSON.parse((res.content[0] as { text: string }).text) as { error: { code: string; message: string; request_id?: string } };

  it('answers 401 without a credential, naming its protected-resource metadata', async () => {
    const res = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    expect(await res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String), request_id: res.headers.get('x-request-id') } });
    const wrong = await fetch(`${t.baseUrl}/mcp`, { method: 'POST', headers: { Authorization: 'Bearer gsk_nope', 'Content-Type': 'application/json' }, body: '{}' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const meta = await fetch(`${t.baseUrl}${path}`);
      expect(await meta.json()).toMatchObject({ resource: `${t.baseUrl}/mcp`, authorization_servers: [t.baseUrl], scopes_supported: ['read', 'create'], bearer_methods_supported: ['header'] });
    }
    await expect(connect('gsk_nope')).rejects.toThrow();
    const get = await fetch(`${t.baseUrl}/mcp`, { headers: { Accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(((await get.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('lists the API tools (no local-file tool) and runs quote → create → get with an API key', async () => {
    const client = await connect(account.apiKey);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(19);
    expect(tools.map((x) => x.name)).not.toContain('assets.upload.file');
    const quote = await call(client, 'quotes.create', { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'remote' } });
    const quoteId = (quote.structuredContent as { quote_id: string }).quote_id;
    const progress: Progress[] = [];
    const created = await call(client, 'tasks.create', { quote_id: quoteId, idempotency_key: 'remote-task-0001' }, (p) => progress.push(p));
    const task = created.structuredContent as { id: string; status: string };
    expect(task.status).toBe('succeeded');
    expect(progress).toEqual([
      { progress: 1, total: 3, message: `${task.id}: queued` },
      { progress: 2, total: 3, message: `${task.id}: running` },
    ]);
    const got = await call(client, 'tasks.get', { id: task.id });
    expect(got.structuredContent).toMatchObject({ id: task.id, status: 'succeeded' });
    const listed = await call(client, 'tasks.list', { limit: 5 });
    expect((listed.structuredContent as { data: { id: string }[] }).data.map((x) => x.id)).toContain(task.id);
  });

  it('uploads through prepare, a PUT of the bytes, and complete', async () => {
    const client = await connect(account.apiKey);
    const bytes = readFileSync(join(FIXTURES, 'audio.wav'));
    const checksum = createHash('sha256').update(bytes).digest('hex');
    const prepared = await call(client, 'assets.upload.prepare', { name: 'voice.wav', mime: 'audio/wav', size: bytes.length, checksum, idempotency_key: 'remote-upload-0001' });
    const up = prepared.structuredContent as { upload_id: string; upload: { url: string; method: string; headers: Record<string, string> } };
    expect(up.upload.url).toBe(`${t.baseUrl}/v1/uploads/${up.upload_id}/content`);
    const put = await fetch(up.upload.url, { method: up.upload.method, headers: up.upload.headers, body: bytes });
    expect(put.status).toBe(200);
    const status = await call(client, 'assets.upload.get', { upload_id: up.upload_id });
    expect(status.structuredContent).toMatchObject({ status: 'uploaded' });
    const completed = await call(client, 'assets.upload.complete', { upload_id: up.upload_id });
    expect(completed.structuredContent).toMatchObject({ status: 'completed', asset_id: expect.stringMatching(/^ast_/) });
    const assetId = (completed.structuredContent as { asset_id: string }).asset_id;
    expect((await call(client, 'assets.get', { id: assetId })).structuredContent).toMatchObject({ checksum, mime: 'audio/wav' });
    expect((await call(client, 'assets.delete', { id: assetId })).structuredContent).toMatchObject({ id: assetId, deleted: true });
  });

  it('returns API errors as tool errors', async () => {
    const client = await connect(account.apiKey);
    const res = await call(client, 'assets.get', { id: 'ast_doesnotexist' });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toBeUndefined();
    expect(errorOf(res)).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String), request_id: expect.stringMatching(/^req_/) } });
    const spent = await call(client, 'tasks.create', { quote_id: 'qt_doesnotexist', idempotency_key: 'remote-task-0002' });
    expect(errorOf(spent).error.code).toBe('NOT_FOUND');
  });

  it('lists only the tools a token\'s scopes allow: a read-only token sees no tool that writes', async () => {
    const all = (await (await connect(account.apiKey)).listTools()).tools.map((x) => x.name);
    const writes = ['tasks.create', 'tasks.run', 'tasks.cancel', 'assets.upload.prepare', 'assets.upload.complete', 'assets.import', 'assets.delete', 'voices.delete'];
    const reader = (await (await connect((await oauthToken(t, 'read')).accessToken)).listTools()).tools.map((x) => x.name);
    expect(reader.sort()).toEqual(all.filter((n) => !writes.includes(n)).sort());
    const creator = (await (await connect((await oauthToken(t, 'create')).accessToken)).listTools()).tools.map((x) => x.name);
    expect(creator).not.toContain('tasks.run'); // it quotes too, which needs read
    expect(creator).toContain('tasks.create');
    expect(creator).not.toContain('wallet.get');
    const both = (await (await connect((await oauthToken(t, 'read create')).accessToken)).listTools()).tools.map((x) => x.name);
    expect(both.sort()).toEqual([...all].sort());
  });

  it('enforces the OAuth scopes per tool', async () => {
    const readOnly = await oauthToken(t, 'read');
    const reader = await connect(readOnly.accessToken);
    expect((await call(reader, 'wallet.get', {})).structuredContent).toMatchObject({ currency: 'CNY' });
    const denied = await call(reader, 'assets.upload.prepare', { name: 'a.txt', mime: 'text/plain', size: 1, checksum: 'a'.repeat(64), idempotency_key: 'remote-upload-0002' });
    expect(denied.isError).toBe(true);
    expect(errorOf(denied).error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', message: 'assets.upload.prepare needs the create scope' });
    const run = await call(reader, 'tasks.run', { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x' }, idempotency_key: 'remote-run-0001' });
    expect(errorOf(run).error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', message: 'tasks.run needs the create scope' });
    const createOnly = await oauthToken(t, 'create');
    const creator = await connect(createOnly.accessToken);
    expect(errorOf(await call(creator, 'tasks.list', {})).error.code).toBe('INSUFFICIENT_SCOPE');
    expect(errorOf(await call(creator, 'assets.delete', { id: 'ast_doesnotexist' })).error.code).toBe('NOT_FOUND'); // allowed: the API answers
  });

  it('lets an MCP client sign a user in through the OAuth server on its own (discovery, PKCE, token)', async () => {
    const registered = await createOAuthClient(t, { name: 'Agent app', redirectUri: 'http://127.0.0.1:9/callback', public: true });
    let tokens: OAuthTokens | undefined;
    let verifier = '';
    let authorizationUrl: URL | undefined;
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return registered.redirectUri;
      },
      get clientMetadata() {
        return { redirect_uris: [registered.redirectUri], client_name: 'Agent app', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], scope: 'read create' };
      },
      clientInformation: () => ({ client_id: registered.clientId }) as OAuthClientInformationFull,
      tokens: () => tokens,
      saveTokens: (t2) => void (tokens = t2),
      redirectToAuthorization: (url) => void (authorizationUrl = url),
      saveCodeVerifier: (v) => void (verifier = v),
      codeVerifier: () => verifier,
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { authProvider: provider });
    const client = new Client({ name: 'signing-in-agent', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow(/Unauthorized/);
    // The client found our authorization server from the 401 alone and sent the user there.
    expect(authorizationUrl?.origin).toBe(t.baseUrl);
    expect(authorizationUrl?.pathname).toBe('/authorize');
    expect(authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    const back = await authorizeInBrowser(t, `${authorizationUrl!.pathname}${authorizationUrl!.search}`, { email: 'agent@example.com', password: 'agent password 1' });
    await transport.finishAuth(back.searchParams.get('code')!);
    expect(tokens?.access_token).toMatch(/^gsa_/);
    const signedIn = new Client({ name: 'signing-in-agent', version: '1.0.0' });
    clients.push(signedIn);
    await signedIn.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { authProvider: provider }));
    expect((await call(signedIn, 'wallet.get', {})).structuredContent).toMatchObject({ currency: 'CNY' });
  });
});
