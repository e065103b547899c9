import { Controller, Get, Module, Param, Put, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { CurrentPrincipal, Public, RequireScope, UploadTokenAuth, type Principal } from '@gensvc/http';
import { SubscriptionEngine } from '@gensvc/event-sourcing';
import { createLogger } from '@gensvc/logging';
import { loadConfig } from '@gensvc/config';
import { StorageModule } from '@gensvc/storage';
import { CloseAccountHandler, CreateAccountHandler, CreateApiKeyHandler, IdentityModule, RevokeApiKeyHandler, UploadTokens } from '@gensvc/identity';
import { AllExceptionsFilter } from '../apps/api/src/http/all-exceptions.filter';
import { requestContextMiddleware } from '../apps/api/src/http/request-context.middleware';
import { SharedCountersModule } from '../apps/api/src/rate-limit/rate-limit.module';

@Controller('probe')
class ProbeController {
  @Get('public')
  @Public()
  open() {
    return { ok: true };
  }

  @Get('read')
  @RequireScope('read')
  read(@CurrentPrincipal() p: Principal) {
    return p;
  }

  @Get('create')
  @RequireScope('create')
  create(@CurrentPrincipal() p: Principal) {
    return p;
  }

  @Put('uploads/:id/content')
  @UploadTokenAuth()
  upload(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return { ...p, id };
  }

  @Get('undeclared')
  undeclared() {
    return { leaked: true };
  }
}

@Module({})
class ProbeApp {
  static forRoot(config: ReturnType<typeof loadConfig>): DynamicModule {
    const storage = StorageModule.forRoot(config);
    const counters = SharedCountersModule.register({ imports: [storage] });
    return { module: ProbeApp, imports: [storage, counters, IdentityModule.register({ imports: [storage, counters] })], controllers: [ProbeController] };
  }
}

/** The global guard against a probe controller with every kind of access rule. */
describe('access guard', () => {
  let app: NestExpressApplication;
  let dataDir: string;
  let http: () => ReturnType<typeof request>;
  let engine: SubscriptionEngine;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gensvc-guard-'));
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const logger = createLogger('silent');
    app = await NestFactory.create<NestExpressApplication>(ProbeApp.forRoot(config), new ExpressAdapter(), { logger: false });
    app.use(requestContextMiddleware(logger));
    app.useGlobalFilters(new AllExceptionsFilter(logger));
    await app.init();
    engine = app.get(SubscriptionEngine);
    await engine.start();
    const server = app.getHttpServer();
    http = () => request(server);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const metadata = () => ({ now: new Date() });
  const revokeKey = (keyId: string) => app.get(RevokeApiKeyHandler).execute({ type: 'RevokeApiKey', data: { key_id: keyId }, metadata: metadata() });

  async function account() {
    const a = await app.get(CreateAccountHandler).execute({ type: 'CreateAccount', data: { name: 'Probe' }, metadata: metadata() });
    await engine.waitFor(a.position);
    return a;
  }

  it('lets public routes through without a credential', async () => {
    await http().get('/probe/public').expect(200, { ok: true });
  });

  it('refuses a route that declares no rule with 500, even with a key', async () => {
    const a = await account();
    const res = await http().get('/probe/undeclared').set('Authorization', `Bearer ${a.apiKey}`).expect(500);
    expect(res.body.error.code).toBe('INTERNAL');
    expect(JSON.stringify(res.body)).not.toContain('leaked');
  });

  it('answers 401 for a missing, malformed or unknown bearer', async () => {
    for (const auth of [undefined, 'Bearer', 'Basic abc', 'Bearer nope', 'Bearer gsk_01jzzzzzzzzzzzzzzzzzzzzzzz_' + 'A'.repeat(43)]) {
      const req = http().get('/probe/read');
      const res = await (auth ? req.set('Authorization', auth) : req).expect(401);
      expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String), request_id: expect.any(String) } });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="gensvc"/);
    }
  });

  it('accepts an API key for both scopes and sets the principal', async () => {
    const a = await account();
    const read = await http().get('/probe/read').set('Authorization', `Bearer ${a.apiKey}`).expect(200);
    expect(read.body).toEqual({ accountId: a.accountId, kind: 'api_key', connectionId: a.keyId, scopes: ['read', 'create'] });
    await http().get('/probe/create').set('Authorization', `Bearer ${a.apiKey}`).expect(200);
  });

  it('refuses a key whose secret part was changed (same key id)', async () => {
    const a = await account();
    const tampered = a.apiKey.slice(0, -4) + (a.apiKey.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await http().get('/probe/read').set('Authorization', `Bearer ${tampered}`).expect(401);
  });

  it('ignores access_token in the query string', async () => {
    const a = await account();
    await http().get(`/probe/read?access_token=${encodeURIComponent(a.apiKey)}`).expect(401);
  });

  it('refuses a revoked key at once', async () => {
    const a = await account();
    await http().get('/probe/read').set('Authorization', `Bearer ${a.apiKey}`).expect(200);
    const r = await revokeKey(a.keyId);
    await engine.waitFor(r.position);
    await http().get('/probe/read').set('Authorization', `Bearer ${a.apiKey}`).expect(401);
    // a second key of the same account still works
    const second = await app.get(CreateApiKeyHandler).execute({ type: 'CreateApiKey', data: { account_id: a.accountId }, metadata: metadata() });
    await engine.waitFor(second.position);
    await http().get('/probe/read').set('Authorization', `Bearer ${second.apiKey}`).expect(200);
  });

  it('refuses every key of a closed account', async () => {
    const a = await account();
    const c = await app.get(CloseAccountHandler).execute({ type: 'CloseAccount', data: { account_id: a.accountId }, metadata: metadata() });
    await engine.waitFor(c.position);
    await http().get('/probe/read').set('Authorization', `Bearer ${a.apiKey}`).expect(401);
  });

  describe('upload tokens', () => {
    it('accepts the token only for its own upload, and never an API key', async () => {
      const a = await account();
      const token = await app.get(UploadTokens).issue({ accountId: a.accountId, connectionId: a.keyId, uploadId: 'up_one', expiresAt: new Date(Date.now() + 60_000) });
      const ok = await http().put('/probe/uploads/up_one/content').set('X-Upload-Token', token).expect(200);
      expect(ok.body).toEqual({ accountId: a.accountId, kind: 'upload_token', connectionId: a.keyId, scopes: [], uploadId: 'up_one', id: 'up_one' });
      await http().put('/probe/uploads/up_two/content').set('X-Upload-Token', token).expect(401);
      await http().put('/probe/uploads/up_one/content').set('Authorization', `Bearer ${a.apiKey}`).expect(401);
      // useless anywhere else
      await http().get('/probe/read').set('X-Upload-Token', token).expect(401);
      await http().get('/probe/read').set('Authorization', `Bearer ${token}`).expect(401);
    });

    it('refuses a tampered token', async () => {
      const a = await account();
      const token = await app.get(UploadTokens).issue({ accountId: a.accountId, connectionId: a.keyId, uploadId: 'up_one', expiresAt: new Date(Date.now() + 60_000) });
      const [body, sig] = token.slice(4).split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
      const forged = 'gsu_' + Buffer.from(JSON.stringify({ ...payload, u: 'up_two' })).toString('base64url') + '.' + sig;
      await http().put('/probe/uploads/up_two/content').set('X-Upload-Token', forged).expect(401);
      await http().put('/probe/uploads/up_one/content').set('X-Upload-Token', token.slice(0, -2) + 'xx').expect(401);
    });

    it('stops working when the key that prepared the upload is revoked', async () => {
      const a = await account();
      const token = await app.get(UploadTokens).issue({ accountId: a.accountId, connectionId: a.keyId, uploadId: 'up_r', expiresAt: new Date(Date.now() + 60_000) });
      await http().put('/probe/uploads/up_r/content').set('X-Upload-Token', token).expect(200);
      const r = await revokeKey(a.keyId);
      await engine.waitFor(r.position);
      await http().put('/probe/uploads/up_r/content').set('X-Upload-Token', token).expect(401);
    });

    it('refuses a token long past its expiry', async () => {
      const a = await account();
      const token = await app.get(UploadTokens).issue({ accountId: a.accountId, connectionId: a.keyId, uploadId: 'up_old', expiresAt: new Date(Date.now() - 25 * 3600_000) });
      await http().put('/probe/uploads/up_old/content').set('X-Upload-Token', token).expect(401);
    });
  });
});
