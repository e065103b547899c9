import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { routeTable } from '@gensvc/identity';
import { createAccount, bearer, oauthToken, type TestAccount } from './support/accounts';
import { startTestApp, type TestApp } from './support/test-app';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Doc = any;

const FIXTURES = join(__dirname, 'fixtures');

/** Validates real responses against the document: operation by method and path, answer by status. */
class ResponseChecker {
  private readonly ajv: Ajv2020;
  readonly seen = new Map<string, Set<number>>();

  constructor(private readonly doc: Doc) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, 'openapi.json');
  }

  operation(method: string, urlPath: string): { template: string; op: Doc } {
    const path = urlPath.split('?')[0];
    for (const [template, ops] of Object.entries<Doc>(this.doc.paths)) {
      const re = new RegExp('^' + template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+') + '$');
      if (re.test(path) && ops[method.toLowerCase()]) return { template, op: ops[method.toLowerCase()] };
    }
    throw new Error(`${method} ${path} is not in the document`);
  }

  check(res: Response): Response {
    const req = (res as unknown as { req: { method: string; path: string } }).req;
    const { template, op } = this.operation(req.method, req.path);
    const key = `${req.method} ${template}`;
    if (!this.seen.has(key)) this.seen.set(key, new Set());
    this.seen.get(key)!.add(res.status);
    const answer = op.responses[String(res.status)];
    if (!answer) throw new Error(`${key}: status ${res.status} is not documented (${JSON.stringify(res.body).slice(0, 200)})`);
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    const type = String(res.headers['content-type'] ?? '').split(';')[0];
    if (type === 'application/json' && req.method !== 'HEAD') {
      const content = answer.content?.['application/json'];
      if (!content) throw new Error(`${key} ${res.status}: JSON is not documented`);
      const pointer = `openapi.json#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${req.method.toLowerCase()}/responses/${res.status}/content/application~1json/schema`;
      const validate = this.ajv.getSchema(pointer) ?? this.ajv.compile({ $ref: pointer });
      if (!validate(res.body)) {
        throw new Error(`${key} ${res.status} does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 500)}`);
      }
    }
    return res;
  }
}

/** MCP and its resource metadata: exercised, with their answers, by test/mcp-http.e2e-spec.ts. */
const MCP_ROUTES = ['GET /.well-known/oauth-protected-resource', 'GET /.well-known/oauth-protected-resource/mcp', 'POST /mcp'];

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Doc;
  let api: ResponseChecker;
  let a: TestAccount;

  beforeAll(async () => {
    t = await startTestApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '300' } });
    const res = await t.http().get('/v1/openapi.json').expect(200);
    doc = res.body;
    api = new ResponseChecker(doc);
    api.check(res);
    a = await createAccount(t, { name: 'openapi', credit: '50.00' });
  });
  afterAll(() => t.close());

  it('is OpenAPI 3.1 at interface version 0.1.0 with the three security schemes', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    const base = t.config.publicBaseUrl;
    expect(doc.components.securitySchemes).toEqual({
      bearer: { type: 'http', scheme: 'bearer', description: expect.any(String) },
      oauth2: {
        type: 'oauth2',
        description: expect.any(String),
        flows: {
          authorizationCode: { authorizationUrl: `${base}/authorize`, tokenUrl: `${base}/token`, refreshUrl: `${base}/token`, scopes: { read: expect.any(String), create: expect.any(String) } },
        },
      },
      uploadToken: { type: 'apiKey', in: 'header', name: 'X-Upload-Token', description: expect.any(String) },
    });
  });

  it('is a valid OpenAPI 3.1 document: no error from Redocly\'s recommended rules, none against the OpenAPI 3.1 schema', async () => {
    const source = JSON.stringify(doc);
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location.map((l) => l.pointer).join(' ')}: ${p.message}`);
    expect(errors).toEqual([]);
    const official = await new Validator().validate(JSON.parse(source));
    expect(official).toEqual({ valid: true });
  });

  it('fails the validators on a known error class (a header written as a bare schema)', async () => {
    const broken = JSON.parse(JSON.stringify(doc));
    broken.paths['/v1/wallet'].get.responses['429'].headers['Retry-After'] = { type: 'integer', minimum: 1 };
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) });
    expect(problems.filter((p) => p.severity === 'error').map((p) => p.ruleId)).toContain('struct');
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('names the agent tools as operationIds, each id once', () => {
    const ids: Record<string, string> = {};
    for (const [path, ops] of Object.entries<Doc>(doc.paths)) for (const [m, op] of Object.entries<Doc>(ops)) ids[op.operationId] = `${m.toUpperCase()} ${path}`;
    expect(ids).toMatchObject({
      'assets.upload.prepare': 'POST /v1/uploads/prepare',
      'assets.upload.complete': 'POST /v1/uploads/{id}/complete',
      'assets.upload.get': 'GET /v1/uploads/{id}',
      'assets.import': 'POST /v1/uploads/import',
      'assets.get': 'GET /v1/assets/{id}',
      'assets.delete': 'DELETE /v1/assets/{id}',
    });
    const all = Object.values<Doc>(doc.paths).flatMap((ops) => Object.values<Doc>(ops).map((op) => op.operationId));
    expect(new Set(all).size).toBe(all.length);
  });

  it('documents every public route of the app with its access rule', () => {
    expect(doc['x-undocumented-routes']).toBeUndefined();
    for (const r of routeTable(t.app)) {
      if (/^\/health\/|^\/v1\/supplier-callbacks\//.test(r.path)) continue;
      const op = doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()];
      expect({ route: `${r.method} ${r.path}`, documented: !!op }).toEqual({ route: `${r.method} ${r.path}`, documented: true });
      const expected =
        r.rule?.kind === 'scope'
          ? [{ bearer: [] }, { oauth2: [...r.rule.scopes] }]
          : r.rule?.kind === 'console'
            ? [{ oauth2: [r.rule.scope] }]
            : r.rule?.kind === 'upload_token'
              ? [{ uploadToken: [] }]
              : [];
      expect(op.security).toEqual(expected);
    }
  });

  it('has the spec\'s schemas: exact fields, patterns and enums', () => {
    const s = doc.components.schemas;
    const fields = (name: string) => Object.keys(s[name].properties).sort();
    expect(fields('Quote')).toEqual(
      ['currency', 'estimated_amount', 'expires_at', 'max_amount', 'model', 'price_version', 'pricing_mode', 'quantity', 'quote_id', 'resolved_model', 'unit', 'unit_price'].sort(),
    );
    expect(s.Quote.required).toHaveLength(12);
    expect(s.Quote.additionalProperties).toBe(false);
    expect(s.Quote.properties.estimated_amount.pattern).toBe('^\\d+\\.\\d{6}$');
    expect(s.Wallet).toMatchObject({ required: ['currency', 'balance', 'reserved', 'available'], additionalProperties: false });
    expect(fields('Upload')).toEqual(['asset', 'asset_id', 'checksum', 'error_code', 'expires_at', 'mime', 'name', 'size', 'status', 'upload', 'upload_id']);
    expect(s.Upload.properties.status.enum).toEqual(['prepared', 'uploading', 'uploaded', 'completed', 'expired']);
    expect(s.Upload.properties.upload).toMatchObject({ required: ['url', 'method', 'headers'], properties: { method: { const: 'PUT' } } });
    expect(s.Cancellation.properties.status.enum).toEqual(['none', 'requested', 'checking', 'refused', 'unconfirmed', 'confirmed', 'not_needed']);
    expect(s.Error).toMatchObject({ required: ['error'], additionalProperties: false, properties: { error: { required: ['code', 'message', 'request_id'], additionalProperties: false } } });
    expect(s.QuoteRequest).toMatchObject({
      required: ['model', 'capability', 'input'],
      additionalProperties: false,
      properties: { model: { minLength: 1, maxLength: 150 }, capability: { minLength: 1, maxLength: 100 }, currency: { enum: ['CNY'] } },
    });
    expect(s.UploadPrepareRequest).toMatchObject({
      required: expect.arrayContaining(['name', 'mime', 'size', 'checksum', 'idempotency_key']),
      properties: { size: { minimum: 1, maximum: 67108864 }, checksum: { pattern: '^[a-f0-9]{64}$' }, idempotency_key: { minLength: 8, maxLength: 150 }, mime: { minLength: 1, maxLength: 100 } },
    });
    const create = doc.paths['/v1/tasks'].post;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string', minLength: 8, maxLength: 150 } }));
    expect(Object.keys(create.responses).sort()).toEqual(['202', '400', '401', '402', '403', '404', '409', '413', '415', '422', '429', '500']);
    expect(create.responses['409'].description).toBe('IDEMPOTENCY_CONFLICT, QUOTE_ALREADY_USED, QUOTE_EXPIRED');
    expect(create.responses['422'].description).toBe('MODEL_UNAVAILABLE');
    const list = doc.paths['/v1/tasks'].get.parameters.map((p: Doc) => p.name);
    expect(list).toEqual(expect.arrayContaining(['page', 'limit', 'q', 'status', 'modality', 'settlement_status', 'connection_id', 'created_from', 'created_before', 'min_amount', 'max_amount']));
    // every schema compiles as JSON Schema 2020-12
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema(doc, 'doc');
    for (const name of Object.keys(s)) expect(() => ajv.compile({ $ref: `doc#/components/schemas/${name}` })).not.toThrow();
  });

  it('matches the real responses of the whole API', async () => {
    const http = () => t.http();
    const key = bearer(a);
    const check = (res: Response) => api.check(res);

    // catalogue
    check(await http().get('/v1/models'));
    check(await http().get('/v1/models?modality=smell'));
    check(await http().get('/v1/models/image-studio-v2'));
    check(await http().get('/v1/models/nope'));
    check(await http().get('/v1/capabilities'));
    check(await http().get('/v1/prices'));

    // identity: missing key, OAuth token without the scope, OAuth endpoints
    check(await http().get('/v1/wallet'));
    const readOnly = await oauthToken(t, 'read');
    check(await http().post('/v1/tasks').set(bearer(readOnly.accessToken)).set('Idempotency-Key', 'openapi-scope-1').send({ quote_id: 'qt_x' }));
    check(await http().get('/.well-known/oauth-authorization-server'));
    check(await http().post('/token').type('form').send({ grant_type: 'password' }));

    // quotes
    const quote = check(await http().post('/v1/quotes').set(key).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' } }));
    expect(quote.status).toBe(200);
    check(await http().post('/v1/quotes').set(key).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' }, extra: 1 }));
    const unpriced = check(await http().post('/v1/quotes').set(key).send({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'x', size: '2048x2048' } }));
    expect(unpriced.status).toBe(422);

    // tasks
    const created = check(await http().post('/v1/tasks').set(key).set('Idempotency-Key', 'openapi-task-1').send({ quote_id: quote.body.quote_id, title: ' hello ' }));
    expect(created.status).toBe(202);
    check(await http().post('/v1/tasks').set(key).set('Idempotency-Key', 'openapi-task-1').send({ quote_id: quote.body.quote_id, title: ' hello ' }));
    expect(check(await http().post('/v1/tasks').set(key).set('Idempotency-Key', 'openapi-task-1').send({ quote_id: quote.body.quote_id })).status).toBe(409);
    expect(check(await http().post('/v1/tasks').set(key).set('Idempotency-Key', 'openapi-task-2').send({ quote_id: quote.body.quote_id })).status).toBe(409);
    expect(check(await http().post('/v1/tasks').set(key).send({ quote_id: quote.body.quote_id })).status).toBe(400);
    check(await http().post('/v1/tasks').set(key).set('Idempotency-Key', 'openapi-task-3').send({ quote_id: 'qt_doesnotexist' }));
    const poor = await createAccount(t, { name: 'poor' });
    const poorQuote = await http().post('/v1/quotes').set(bearer(poor)).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' } });
    expect(check(await http().post('/v1/tasks').set(bearer(poor)).set('Idempotency-Key', 'openapi-poor-1').send({ quote_id: poorQuote.body.quote_id })).status).toBe(402);
    check(await http().get(`/v1/tasks/${created.body.id}`).set(key));
    check(await http().get('/v1/tasks/task_nope').set(key));
    check(await http().get('/v1/tasks?status=queued&limit=5').set(key));
    check(await http().get('/v1/tasks?limit=500').set(key));
    check(await http().post(`/v1/tasks/${created.body.id}/cancel`).set(key).send({}));
    // a running task: 202; a finished one: 200 not_needed
    const q2 = await http().post('/v1/quotes').set(key).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'again' } });
    const t2 = await http().post('/v1/tasks').set(key).set('Idempotency-Key', 'openapi-task-4').send({ quote_id: q2.body.quote_id });
    for (let i = 0; i < 100 && (await http().get(`/v1/tasks/${t2.body.id}`).set(key)).body.status === 'queued'; i++) await new Promise((r) => setTimeout(r, 20));
    check(await http().post(`/v1/tasks/${t2.body.id}/cancel`).set(key).send({}));
    let done = await http().get(`/v1/tasks/${t2.body.id}`).set(key);
    while (!['succeeded', 'failed', 'canceled'].includes(done.body.status)) {
      await new Promise((r) => setTimeout(r, 50));
      done = check(await http().get(`/v1/tasks/${t2.body.id}`).set(key));
    }
    check(await http().post(`/v1/tasks/${t2.body.id}/cancel`).set(key).send({}));
    // following a task: Prefer: wait, the event stream to its end, then 204 for its last id; an unknown task
    expect(check(await http().get(`/v1/tasks/${t2.body.id}`).set(key).set('Prefer', 'wait=30')).headers['preference-applied']).toBe('wait=30');
    const streamed = check(await http().get(`/v1/tasks/${t2.body.id}/events`).set(key).buffer(true));
    expect(streamed.status).toBe(200);
    const lastId = [...streamed.text.matchAll(/^id: (\d+)$/gm)].pop()![1];
    expect(check(await http().get(`/v1/tasks/${t2.body.id}/events`).set(key).set('Last-Event-ID', lastId)).status).toBe(204);
    check(await http().get('/v1/tasks/task_nope/events').set(key));
    check(await http().get('/v1/wallet').set(key));
    check(await http().get('/v1/billing').set(key));
    check(await http().get('/v1/billing?min_amount=abc').set(key));

    // uploads: prepared, content, complete
    const png = readFileSync(join(FIXTURES, 'image.png'));
    const meta = { name: 'image.png', mime: 'image/png', size: png.length, checksum: createHash('sha256').update(png).digest('hex'), idempotency_key: 'openapi-upload-1' };
    const prepared = check(await http().post('/v1/uploads/prepare').set(key).send(meta));
    expect(prepared.status).toBe(200);
    check(await http().post('/v1/uploads/prepare').set(key).send({ ...meta, name: 'other.png' }));
    check(await http().post('/v1/uploads/prepare').set(key).send({ ...meta, idempotency_key: 'openapi-upload-x', mime: 'image/gif' }));
    check(await http().post('/v1/uploads/prepare').set(key).send({ ...meta, checksum: 'ABC' }));
    const id = prepared.body.upload_id as string;
    const contentPath = new URL(prepared.body.upload.url).pathname;
    check(await http().post(`/v1/uploads/${id}/complete`).set(key).send({}));
    check(await http().put(contentPath).set('X-Upload-Token', 'gsu_bad.bad').set('Content-Type', 'image/png').send(png));
    check(await http().put(contentPath).set(prepared.body.upload.headers).set('Content-Type', 'image/jpeg').send(png));
    check(await http().put(contentPath).set(prepared.body.upload.headers).send(Buffer.concat([png.subarray(0, png.length - 1), Buffer.from([0])])));
    expect(check(await http().put(contentPath).set(prepared.body.upload.headers).send(png)).status).toBe(200);
    check(await http().get(`/v1/uploads/${id}`).set(key));
    const completed = check(await http().post(`/v1/uploads/${id}/complete`).set(key).send({}));
    expect(completed.status).toBe(200);
    check(await http().put(contentPath).set(prepared.body.upload.headers).send(png));
    check(await http().get('/v1/uploads/up_nope').set(key));

    // direct upload and import
    const direct = check(await http().post('/v1/uploads').set(key).set('Content-Type', 'text/plain').set('X-Filename', 'hello.txt').send('hello world'));
    expect(direct.status).toBe(201);
    check(await http().post('/v1/uploads').set(key).set('Content-Type', 'image/gif').set('X-Filename', 'a.gif').send('GIF89a'));
    check(await http().post('/v1/uploads').set(key).set('Content-Type', 'application/json').set('X-Filename', 'bad.json').send('{"a":'));
    check(await http().post('/v1/uploads/import').set(key).send({ url: 'https://127.0.0.1/file.png', name: 'x.png' }));
    check(await http().post('/v1/uploads/import').set(key).send({ url: 'https://example.com/a.png' }));

    // assets and their signed links
    const assetId = completed.body.asset_id as string;
    const asset = check(await http().get(`/v1/assets/${assetId}`).set(key));
    const link = new URL(asset.body.url);
    const file = `${link.pathname}${link.search}`;
    check(await http().get(file));
    check(await http().head(file));
    check(await http().get(file).set('Range', 'bytes=0-9'));
    check(await http().get(file).set('Range', 'bytes=0-1,4-5'));
    check(await http().get(file).set('If-None-Match', asset.body.checksum ? `"${asset.body.checksum}"` : '*'));
    check(await http().get(file.replace(/signature=[^&]+/, 'signature=AAAA')));
    check(await http().get('/v1/assets?limit=5').set(key));
    check(await http().get('/v1/assets?limit=0').set(key));
    check(await http().delete(`/v1/assets/${direct.body.id}`).set(key));
    check(await http().get(`/v1/assets/${direct.body.id}`).set(key));

    // voices: clone one from the uploaded WAV, read it, delete it
    const wav = readFileSync(join(FIXTURES, 'audio.wav'));
    const sample = check(await http().post('/v1/uploads').set(key).set('Content-Type', 'audio/wav').set('X-Filename', 'sample.wav').send(wav));
    const vq = check(
      await http().post('/v1/quotes').set(key).send({ model: 'voice-clone-std', capability: 'voice.clone', input: { asset_ids: [sample.body.id], name: 'Narrator', consent_attested: true } }),
    );
    const vt = await http().post('/v1/tasks').set(key).set('Idempotency-Key', 'openapi-voice-1').send({ quote_id: vq.body.quote_id });
    let voiceTask = vt;
    while (!['succeeded', 'failed', 'canceled'].includes(voiceTask.body.status)) {
      await new Promise((r) => setTimeout(r, 50));
      voiceTask = check(await http().get(`/v1/tasks/${vt.body.id}`).set(key));
    }
    expect(voiceTask.body.status).toBe('succeeded');
    check(await http().get('/v1/voices').set(key));
    check(await http().get('/v1/voices?limit=0').set(key));
    check(await http().get(`/v1/voices/${voiceTask.body.output.voice_id}`).set(key));
    check(await http().delete(`/v1/voices/${voiceTask.body.output.voice_id}`).set(key));
    check(await http().get('/v1/voices/voice_nope').set(key));
    check(await http().get('/v1/tasks?limit=100').set(key));

    // webhook endpoints
    const hook = check(await http().post('/v1/webhook-endpoints').set(key).send({ url: 'https://hooks.example.com/openapi', events: ['task.succeeded'], description: 'openapi' }));
    expect(hook.status).toBe(201);
    check(await http().post('/v1/webhook-endpoints').set(key).send({ url: 'https://10.0.0.1/x', events: ['*'] }));
    check(await http().post('/v1/webhook-endpoints').set(key).send({ url: 'https://hooks.example.com/x', events: ['nope'] }));
    check(await http().get('/v1/webhook-endpoints').set(key));
    check(await http().get(`/v1/webhook-endpoints/${hook.body.id}`).set(key));
    check(await http().get('/v1/webhook-endpoints/whe_nope').set(key));
    check(await http().post(`/v1/webhook-endpoints/${hook.body.id}/rotate-secret`).set(key));
    check(await http().get(`/v1/webhook-endpoints/${hook.body.id}/deliveries`).set(key));
    check(await http().get('/v1/webhook-endpoints/whe_nope/deliveries').set(key));
    check(await http().post(`/v1/webhook-endpoints/${hook.body.id}/deliveries/whd_nope/retry`).set(key));
    check(await http().delete(`/v1/webhook-endpoints/${hook.body.id}`).set(key));
    check(await http().delete(`/v1/webhook-endpoints/${hook.body.id}`).set(key));

    // API keys: only the console's own sign-in
    const consoleLogin = await oauthToken(t, 'read create', undefined, { console: true });
    const consoleAuth = bearer(consoleLogin.accessToken);
    const newKey = check(await http().post('/v1/api-keys').set(consoleAuth).send({}));
    expect(newKey.status).toBe(201);
    check(await http().post('/v1/api-keys').set(key).send({}));
    check(await http().post('/v1/api-keys').set(consoleAuth).send({ name: 'x' }));
    check(await http().get('/v1/api-keys').set(consoleAuth));
    check(await http().get('/v1/api-keys').set(key));
    check(await http().delete(`/v1/api-keys/${newKey.body.id}`).set(consoleAuth));
    check(await http().delete('/v1/api-keys/key_nope').set(consoleAuth));

    // The calls above reached every operation of the API with its main answers.
    const statuses = Object.fromEntries([...api.seen].map(([k, v]) => [k, [...v].sort()]));
    expect(statuses).toMatchObject({
      'POST /v1/tasks': expect.arrayContaining([202, 400, 402, 403, 404, 409]),
      'POST /v1/uploads/prepare': expect.arrayContaining([200, 400, 409, 415]),
      'PUT /v1/uploads/{id}/content': expect.arrayContaining([200, 401, 415, 422]),
      'POST /v1/uploads/{id}/complete': expect.arrayContaining([200, 409]),
      'GET /v1/assets/{id}/content': expect.arrayContaining([200, 206, 403, 416]),
      'POST /v1/tasks/{id}/cancel': expect.arrayContaining([200]),
    });
    const operations = Object.entries<Doc>(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    const missed = operations.filter((o) => !api.seen.has(o) && !['GET /authorize', 'POST /authorize', 'POST /revoke', ...MCP_ROUTES].includes(o));
    expect(missed).toEqual([]);
  });
});
