import type { AccessRule } from '@gensvc/http';
import { UploadTokens, routeTable, type RouteEntry } from '@gensvc/identity';
import { startTestApp, type TestApp } from './support/test-app';
import { bearer, createAccount, oauthToken, revokeApiKey } from './support/accounts';

/**
 * Every route of the running app against its access rule (table-driven over the real route
 * table, so a new route without a declared rule, or with a rule other than the spec's, fails).
 */
const pub: AccessRule = { kind: 'public' };
const read: AccessRule = { kind: 'scope', scopes: ['read'] };
const create: AccessRule = { kind: 'scope', scopes: ['create'] };
const readAndCreate: AccessRule = { kind: 'scope', scopes: ['read', 'create'] };
const upload: AccessRule = { kind: 'upload_token' };

/** The spec's endpoint table (Auth column), plus the OAuth endpoints. Path parameters as `:p`. */
const SPEC: Record<string, AccessRule> = {
  'GET /v1/models': pub,
  'GET /v1/models/:p': pub,
  'GET /v1/capabilities': pub,
  'GET /v1/prices': pub,
  'POST /v1/quotes': read,
  'POST /v1/tasks': create,
  'GET /v1/tasks': read,
  'GET /v1/tasks/:p': read,
  'GET /v1/tasks/:p/events': read,
  'POST /v1/tasks/:p/cancel': create,
  'GET /v1/wallet': read,
  'GET /v1/billing': read,
  'POST /v1/uploads': create,
  'POST /v1/uploads/import': create,
  'POST /v1/uploads/prepare': create,
  'GET /v1/uploads/:p': read,
  'PUT /v1/uploads/:p/content': upload,
  'POST /v1/uploads/:p/complete': create,
  'GET /v1/assets': read,
  'GET /v1/assets/:p': read,
  'DELETE /v1/assets/:p': create,
  'GET /v1/voices': read,
  'GET /v1/voices/:p': read,
  'DELETE /v1/voices/:p': create,
  // CONTRACT §10: an endpoint's messages carry task data, so creating one needs read too.
  'POST /v1/webhook-endpoints': readAndCreate,
  'GET /v1/webhook-endpoints': read,
  'GET /v1/webhook-endpoints/:p': read,
  'DELETE /v1/webhook-endpoints/:p': create,
  'POST /v1/webhook-endpoints/:p/rotate-secret': create,
  'GET /v1/webhook-endpoints/:p/deliveries': read,
  'POST /v1/webhook-endpoints/:p/deliveries/:p/retry': create,
  'GET /v1/api-keys': { kind: 'console', scope: 'read' },
  'POST /v1/api-keys': { kind: 'console', scope: 'create' },
  'DELETE /v1/api-keys/:p': { kind: 'console', scope: 'create' },
  'GET /authorize': pub,
  'POST /authorize': pub,
  'POST /token': pub,
  'POST /revoke': pub,
  'GET /.well-known/oauth-authorization-server': pub,
};

const MISSING_ID = 'zz_missing';
const keyOf = (r: RouteEntry) => `${r.method} ${r.path.replace(/:[^/]+/g, ':p')}`;
const describeRule = (rule: AccessRule | undefined) =>
  !rule ? 'none' : rule.kind === 'scope' ? `scope:${rule.scopes.join('+')}` : rule.kind === 'console' ? `console:${rule.scope}` : rule.kind;

describe('access rules of every route', () => {
  let t: TestApp;
  let routes: RouteEntry[];
  let key: { accountId: string; apiKey: string; keyId: string };
  let revoked: string;
  let readToken: string;
  let createToken: string;
  let bothToken: string;
  let uploadToken: string;
  let otherUploadToken: string;

  beforeAll(async () => {
    t = await startTestApp();
    routes = routeTable(t.app);
    key = await createAccount(t);
    const gone = await createAccount(t);
    await revokeApiKey(t, gone.keyId);
    revoked = gone.apiKey;
    readToken = (await oauthToken(t, 'read')).accessToken;
    createToken = (await oauthToken(t, 'create')).accessToken;
    bothToken = (await oauthToken(t, 'read create')).accessToken;
    const tokens = t.app.get(UploadTokens);
    const expiresAt = new Date(Date.now() + 600_000);
    uploadToken = await tokens.issue({ accountId: key.accountId, connectionId: key.keyId, uploadId: MISSING_ID, expiresAt });
    otherUploadToken = await tokens.issue({ accountId: key.accountId, connectionId: key.keyId, uploadId: 'up_other', expiresAt });
  });
  afterAll(() => t.close());

  function call(route: RouteEntry, headers: Record<string, string>) {
    const path = route.path.replace(/:[^/]+/g, MISSING_ID);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
    let req = t.http()[method](path);
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    const rawBody = (route.method === 'POST' && route.path === '/v1/uploads') || route.rule?.kind === 'upload_token';
    if (['POST', 'PUT', 'PATCH'].includes(route.method) && !rawBody) req = req.send({});
    return req;
  }

  /** Whether the guard refused the request (the API error object with these codes). */
  const refusedWith = (res: { status: number; body: unknown }, code: 'UNAUTHORIZED' | 'INSUFFICIENT_SCOPE') =>
    res.status === (code === 'UNAUTHORIZED' ? 401 : 403) && (res.body as { error?: { code?: string } })?.error?.code === code;

  it('finds the routes of the composed app', () => {
    expect(routes.length).toBeGreaterThanOrEqual(9);
    expect(routes.map(keyOf)).toEqual(expect.arrayContaining(['GET /v1/models', 'POST /token', 'GET /authorize']));
  });

  it('every route declares an access rule, and the spec endpoints declare the spec rule', () => {
    const problems: string[] = [];
    for (const r of routes) {
      if (!r.rule) problems.push(`${keyOf(r)} (${r.controller}.${r.handler}) declares no access rule`);
      const expected = SPEC[keyOf(r)];
      if (expected && describeRule(expected) !== describeRule(r.rule)) {
        problems.push(`${keyOf(r)} declares ${describeRule(r.rule)} but the spec says ${describeRule(expected)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('public routes need no credential', async () => {
    const problems: string[] = [];
    for (const r of routes.filter((r) => r.rule?.kind === 'public')) {
      const res = await call(r, {});
      // POST /mcp checks the bearer itself (its 401 names the RFC 9728 metadata; test/mcp-http.e2e-spec.ts).
      if (keyOf(r) === 'POST /mcp') continue;
      if (refusedWith(res, 'UNAUTHORIZED') || refusedWith(res, 'INSUFFICIENT_SCOPE')) problems.push(`${keyOf(r)} answered ${res.status}`);
    }
    expect(problems).toEqual([]);
  });

  it('private routes answer 401 without a credential, with a revoked key, an unknown token or an upload token', async () => {
    const problems: string[] = [];
    for (const r of routes.filter((r) => r.rule?.kind === 'scope')) {
      for (const [name, headers] of Object.entries<Record<string, string>>({
        none: {},
        revoked: bearer(revoked),
        unknown: bearer('gsa_0123456789abcdef_' + 'x'.repeat(43)),
        'upload token as bearer': bearer(uploadToken),
        'upload token header': { 'X-Upload-Token': uploadToken },
      })) {
        const res = await call(r, headers);
        if (!refusedWith(res, 'UNAUTHORIZED')) problems.push(`${keyOf(r)} with ${name}: ${res.status}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('an API key passes every scope; an OAuth token passes only with every scope the route names (403 INSUFFICIENT_SCOPE otherwise)', async () => {
    const problems: string[] = [];
    const tokens = { read: readToken, create: createToken, 'read+create': bothToken };
    for (const r of routes.filter((r) => r.rule?.kind === 'scope')) {
      const scopes = r.rule!.kind === 'scope' ? r.rule!.scopes : [];
      const withKey = await call(r, bearer(key.apiKey));
      if (refusedWith(withKey, 'UNAUTHORIZED') || refusedWith(withKey, 'INSUFFICIENT_SCOPE')) problems.push(`${keyOf(r)} refused an API key (${withKey.status})`);
      for (const [granted, token] of Object.entries(tokens)) {
        const res = await call(r, bearer(token));
        const enough = scopes.every((s) => granted.split('+').includes(s));
        if (enough && (refusedWith(res, 'UNAUTHORIZED') || refusedWith(res, 'INSUFFICIENT_SCOPE'))) problems.push(`${keyOf(r)} refused a ${granted} token (${res.status})`);
        if (!enough && !refusedWith(res, 'INSUFFICIENT_SCOPE')) problems.push(`${keyOf(r)} let a ${granted} token through (${res.status})`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('upload-token routes take only the X-Upload-Token of their own upload', async () => {
    const problems: string[] = [];
    for (const r of routes.filter((r) => r.rule?.kind === 'upload_token')) {
      for (const [name, headers] of Object.entries<Record<string, string>>({
        none: {},
        'API key': bearer(key.apiKey),
        'OAuth token': bearer(createToken),
        "another upload's token": { 'X-Upload-Token': otherUploadToken },
      })) {
        const res = await call(r, headers);
        if (!refusedWith(res, 'UNAUTHORIZED')) problems.push(`${keyOf(r)} with ${name}: ${res.status}`);
      }
      const own = await call(r, { 'X-Upload-Token': uploadToken, 'Content-Type': 'text/plain' });
      if (refusedWith(own, 'UNAUTHORIZED') || refusedWith(own, 'INSUFFICIENT_SCOPE')) problems.push(`${keyOf(r)} refused its own upload token`);
    }
    expect(problems).toEqual([]);
  });
});
