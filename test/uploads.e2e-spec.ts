import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { FixedClock } from '@gensvc/kernel';
import { UploadExpiryJob } from '@gensvc/assets';
import { bearer, createAccount, createApiKey, oauthToken, revokeApiKey, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';
import { FIXTURES, complete, fixture, metaOf, newKey, openRequest, prepare, putContent, sha256, storedObjects, until } from './fixtures/helpers';

const UPLOAD_FIELDS = ['asset_id', 'checksum', 'error_code', 'expires_at', 'mime', 'name', 'size', 'status', 'upload_id'];
const MIN = 60_000;

describe('prepared uploads', () => {
  let t: TestApp;
  let alice: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
  });
  beforeEach(async () => {
    alice = await createAccount(t);
  });
  afterAll(() => t.close());

  it.each(FIXTURES)('takes a real $file ($mime) through prepare, PUT and complete into one asset', async ({ file, mime }) => {
    const bytes = fixture(file);
    const key = newKey();
    const p = await prepare(t, alice, { ...metaOf(bytes, mime, file), idempotency_key: key }).expect(200);
    expect(Object.keys(p.body).sort()).toEqual([...UPLOAD_FIELDS, 'upload'].sort());
    expect(p.body).toEqual({
      upload_id: expect.stringMatching(/^up_/),
      status: 'prepared',
      name: file,
      mime,
      size: bytes.length,
      checksum: sha256(bytes),
      expires_at: expect.any(String),
      asset_id: null,
      error_code: null,
      upload: {
        url: `${t.config.publicBaseUrl}/v1/uploads/${p.body.upload_id}/content`,
        method: 'PUT',
        headers: { 'X-Upload-Token': expect.any(String), 'Content-Type': mime },
      },
    });
    const validity = Date.parse(p.body.expires_at) - Date.now();
    expect(validity).toBeGreaterThan(14 * MIN);
    expect(validity).toBeLessThanOrEqual(15 * MIN);

    const read = await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(alice)).expect(200);
    expect(Object.keys(read.body).sort()).toEqual(UPLOAD_FIELDS);
    expect(JSON.stringify(read.body)).not.toContain(p.body.upload.headers['X-Upload-Token']);

    const put = await putContent(t, p.body, bytes).expect(200);
    expect(put.body).toMatchObject({ upload_id: p.body.upload_id, status: 'uploaded', asset_id: null, error_code: null });
    expect(put.body.upload).toBeUndefined();

    const done = await complete(t, alice, p.body.upload_id).expect(200);
    expect(done.body).toMatchObject({ status: 'completed', asset_id: expect.stringMatching(/^ast_/) });
    expect(done.body.asset).toMatchObject({ id: done.body.asset_id, name: file, mime, size: bytes.length, checksum: sha256(bytes) });

    const asset = await t.http().get(`/v1/assets/${done.body.asset_id}`).set(bearer(alice)).expect(200);
    const got = await t.http().get(new URL(asset.body.download_url).pathname + new URL(asset.body.download_url).search).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(got.status).toBe(200);
    expect(Buffer.compare(got.body as Buffer, bytes)).toBe(0);

    // Rule 4: prepare again with the same key answers the completed upload, no credential.
    const again = await prepare(t, alice, { ...metaOf(bytes, mime, file), idempotency_key: key }).expect(200);
    expect(again.body).toMatchObject({ upload_id: p.body.upload_id, status: 'completed', asset_id: done.body.asset_id });
    expect(again.body.upload).toBeUndefined();
  });

  it('never hands signed links to a grant without read: completing, completing again and preparing again answer the asset without them', async () => {
    const email = `uploader-${Date.now()}@example.com`;
    const password = 'correct horse battery';
    const owner = await createAccount(t, { email, password });
    const login = { accountId: owner.accountId, email, password };
    const writer = (await oauthToken(t, 'create', login)).accessToken;
    const both = (await oauthToken(t, 'read create', login)).accessToken;
    const hasLinks = (body: unknown) => /\/content\?|signature=/.test(JSON.stringify(body));
    const bytes = fixture('image.png');
    const key = newKey();
    const body = { ...metaOf(bytes, 'image/png', 'w.png'), idempotency_key: key };
    const p = await t.http().post('/v1/uploads/prepare').set(bearer(writer)).send(body).expect(200);
    await putContent(t, p.body, bytes).expect(200);
    const done = await t.http().post(`/v1/uploads/${p.body.upload_id}/complete`).set(bearer(writer)).send({}).expect(200);
    expect(done.body).toMatchObject({ status: 'completed', asset_id: expect.stringMatching(/^ast_/), asset: { id: done.body.asset_id, name: 'w.png', mime: 'image/png', size: bytes.length } });
    expect(hasLinks(done.body)).toBe(false);
    const again = await t.http().post(`/v1/uploads/${p.body.upload_id}/complete`).set(bearer(writer)).send({}).expect(200);
    expect(again.body.asset).toEqual(done.body.asset);
    expect(hasLinks(again.body)).toBe(false);
    const replayed = await t.http().post('/v1/uploads/prepare').set(bearer(writer)).send(body).expect(200);
    expect(replayed.body).toMatchObject({ status: 'completed', asset_id: done.body.asset_id });
    expect(hasLinks(replayed.body)).toBe(false);
    // The upload token (no scope of its own) gets the completed upload without links too.
    const put = await putContent(t, p.body, bytes).expect(200);
    expect(put.body.status).toBe('completed');
    expect(hasLinks(put.body)).toBe(false);
    // A grant with read gets the links, as the API key does.
    const reader = await t.http().post(`/v1/uploads/${p.body.upload_id}/complete`).set(bearer(both)).send({}).expect(200);
    expect(reader.body.asset).toMatchObject({ id: done.body.asset_id, url: expect.stringContaining('/content?'), download_url: expect.stringContaining('/content?') });
    expect((await complete(t, owner, p.body.upload_id).expect(200)).body.asset.url).toContain('signature=');
  });

  it('returns the same upload for a repeated prepare and refuses different metadata under the key (IDEMPOTENCY_CONFLICT)', async () => {
    const bytes = fixture('image.png');
    const key = newKey();
    const first = await prepare(t, alice, { ...metaOf(bytes, 'image/png', 'a.png'), idempotency_key: key }).expect(200);
    const second = await prepare(t, alice, { ...metaOf(bytes, 'image/png', 'a.png'), idempotency_key: key }).expect(200);
    expect(second.body.upload_id).toBe(first.body.upload_id);
    expect(second.body.expires_at).toBe(first.body.expires_at);
    // The credential of the repeat works too.
    await putContent(t, second.body, bytes).expect(200);
    for (const change of [{ name: 'b.png' }, { size: bytes.length + 1 }, { checksum: 'f'.repeat(64) }, { mime: 'image/jpeg' }]) {
      const res = await prepare(t, alice, { ...metaOf(bytes, 'image/png', 'a.png'), ...change, idempotency_key: key }).expect(409);
      expectError(res.body, 'IDEMPOTENCY_CONFLICT');
    }
    // Keys are per account.
    const bob = await createAccount(t);
    const other = await prepare(t, bob, { ...metaOf(bytes, 'image/png', 'b.png'), idempotency_key: key }).expect(200);
    expect(other.body.upload_id).not.toBe(first.body.upload_id);
  });

  it.each([
    [{}, 'name'],
    [{ extra: 1 }, 'extra'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: 'a/b.png' }, 'name'],
    [{ name: 'bad\nname.png' }, 'name'],
    [{ mime: '' }, 'mime'],
    [{ mime: 'x'.repeat(101) }, 'mime'],
    [{ size: 0 }, 'size'],
    [{ size: 67_108_865 }, 'size'],
    [{ size: 1.5 }, 'size'],
    [{ size: '12' }, 'size'],
    [{ checksum: 'A'.repeat(64) }, 'checksum'],
    [{ checksum: 'a'.repeat(63) }, 'checksum'],
    [{ idempotency_key: 'short' }, 'idempotency_key'],
    [{ idempotency_key: 'k'.repeat(151) }, 'idempotency_key'],
  ])('refuses the prepare body %j (VALIDATION_ERROR naming %s)', async (change, field) => {
    const base = { name: 'a.png', mime: 'image/png', size: 10, checksum: 'a'.repeat(64), idempotency_key: newKey() };
    const body = Object.keys(change).length ? { ...base, ...change } : { mime: 'image/png', size: 10, checksum: 'a'.repeat(64), idempotency_key: newKey() };
    const res = await t.http().post('/v1/uploads/prepare').set(bearer(alice)).send(body).expect(400);
    expectError(res.body, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain(field);
  });

  it('refuses a MIME type the service does not accept (415)', async () => {
    const res = await prepare(t, alice, { name: 'a.gif', mime: 'image/gif', size: 10, checksum: 'a'.repeat(64) }).expect(415);
    expectError(res.body, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('needs the create scope credential for prepare and complete, read for the status', async () => {
    await t.http().post('/v1/uploads/prepare').send({}).expect(401);
    await t.http().get('/v1/uploads/up_x').expect(401);
    await t.http().post('/v1/uploads/up_x/complete').send({}).expect(401);
  });

  it("hides other accounts' uploads (404)", async () => {
    const bytes = fixture('text.txt');
    const p = await prepare(t, alice, metaOf(bytes, 'text/plain')).expect(200);
    const bob = await createAccount(t);
    expectError((await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(bob)).expect(404)).body, 'NOT_FOUND');
    expectError((await complete(t, bob, p.body.upload_id).expect(404)).body, 'NOT_FOUND');
    expectError((await t.http().get('/v1/uploads/up_doesnotexist').set(bearer(alice)).expect(404)).body, 'NOT_FOUND');
  });

  describe('the upload token', () => {
    it('authenticates only the PUT of its own upload', async () => {
      const bytes = fixture('text.txt');
      const a = await prepare(t, alice, metaOf(bytes, 'text/plain')).expect(200);
      const b = await prepare(t, alice, metaOf(bytes, 'text/plain')).expect(200);
      const token = a.body.upload.headers['X-Upload-Token'];
      // No token, an account key instead, another upload's token: 401.
      expectError((await t.http().put(`/v1/uploads/${a.body.upload_id}/content`).set('Content-Type', 'text/plain').send(bytes).expect(401)).body, 'UNAUTHORIZED');
      await t.http().put(`/v1/uploads/${a.body.upload_id}/content`).set(bearer(alice)).set('Content-Type', 'text/plain').send(bytes).expect(401);
      await putContent(t, b.body, bytes, { 'X-Upload-Token': token }).expect(401);
      // It cannot read resources or act as a bearer credential.
      await t.http().get(`/v1/uploads/${a.body.upload_id}`).set('X-Upload-Token', token).expect(401);
      await t.http().get(`/v1/uploads/${a.body.upload_id}`).set('Authorization', `Bearer ${token}`).expect(401);
      await t.http().post('/v1/uploads/prepare').set('Authorization', `Bearer ${token}`).send(metaOf(bytes, 'text/plain')).expect(401);
      await putContent(t, a.body, bytes).expect(200);
    });

    it('stops working when the key that prepared the upload is revoked (rule 7)', async () => {
      const key = await createApiKey(t, alice.accountId);
      const bytes = fixture('text.txt');
      const p = await t.http().post('/v1/uploads/prepare').set(bearer(key.apiKey)).send({ ...metaOf(bytes, 'text/plain'), idempotency_key: newKey() }).expect(200);
      await revokeApiKey(t, key.keyId);
      expectError((await putContent(t, p.body, bytes).expect(401)).body, 'UNAUTHORIZED');
    });
  });

  describe('content checks (the upload stays usable for a corrected re-send)', () => {
    async function expectRefused(bytes: Buffer, declared: { mime: string; size?: number; checksum?: string }, sent: Buffer, code: string, status: number, headers: Record<string, string> = {}) {
      const p = await prepare(t, alice, { ...metaOf(bytes, declared.mime, 'f'), ...declared }).expect(200);
      const res = await putContent(t, p.body, sent, headers).expect(status);
      expectError(res.body, code);
      const after = await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(alice)).expect(200);
      expect(after.body.status).toBe('prepared');
      return { p, after };
    }

    it('refuses a SHA-256 mismatch (CHECKSUM_MISMATCH), records it, and accepts the right bytes afterwards', async () => {
      const good = fixture('text.txt');
      const bad = Buffer.from(good);
      bad[0] ^= 0x01;
      const { p, after } = await expectRefused(good, { mime: 'text/plain' }, bad, 'CHECKSUM_MISMATCH', 422);
      expect(after.body.error_code).toBe('CHECKSUM_MISMATCH');
      expect(storedObjects(t, `uploads/${p.body.upload_id}`)).toEqual([]);
      const ok = await putContent(t, p.body, good).expect(200);
      expect(ok.body).toMatchObject({ status: 'uploaded', error_code: null });
      await complete(t, alice, p.body.upload_id).expect(200);
    });

    it('refuses fewer bytes than declared (SIZE_MISMATCH) and more (PAYLOAD_TOO_LARGE)', async () => {
      const good = fixture('data.json');
      await expectRefused(good, { mime: 'application/json' }, good.subarray(0, good.length - 2), 'SIZE_MISMATCH', 422);
      await expectRefused(good, { mime: 'application/json' }, Buffer.concat([good, Buffer.from('  ')]), 'PAYLOAD_TOO_LARGE', 413);
    });

    it('refuses a real type that differs from the declared MIME, even with a matching Content-Type (FILE_TYPE_MISMATCH)', async () => {
      const png = fixture('image.png');
      await expectRefused(png, { mime: 'image/jpeg' }, png, 'FILE_TYPE_MISMATCH', 422);
      await expectRefused(png, { mime: 'text/plain' }, png, 'FILE_TYPE_MISMATCH', 422);
      await expectRefused(fixture('audio.wav'), { mime: 'audio/mpeg' }, fixture('audio.wav'), 'FILE_TYPE_MISMATCH', 422);
      await expectRefused(fixture('text.txt'), { mime: 'video/mp4' }, fixture('text.txt'), 'FILE_TYPE_MISMATCH', 422);
    });

    it('refuses text that is not UTF-8 (INVALID_TEXT) and JSON that does not parse (INVALID_JSON)', async () => {
      const latin1 = Buffer.from('caf\xe9 au lait\n', 'latin1');
      await expectRefused(latin1, { mime: 'text/plain' }, latin1, 'INVALID_TEXT', 422);
      const json = Buffer.from('{"prompt": "fox",}');
      await expectRefused(json, { mime: 'application/json' }, json, 'INVALID_JSON', 422);
    });

    it('refuses a Content-Type other than the prepared MIME (415), so Content-Type cannot disguise a file', async () => {
      const png = fixture('image.png');
      const p = await prepare(t, alice, metaOf(png, 'image/png')).expect(200);
      expectError((await putContent(t, p.body, png, { 'Content-Type': 'image/jpeg' }).expect(415)).body, 'UNSUPPORTED_MEDIA_TYPE');
      expectError((await putContent(t, p.body, png, { 'Content-Type': 'application/octet-stream' }).expect(415)).body, 'UNSUPPORTED_MEDIA_TYPE');
      await putContent(t, p.body, png).expect(200);
    });
  });

  describe('complete', () => {
    it('is refused before the content arrived (409 UPLOAD_NOT_READY)', async () => {
      const p = await prepare(t, alice, metaOf(fixture('image.jpg'), 'image/jpeg')).expect(200);
      expectError((await complete(t, alice, p.body.upload_id).expect(409)).body, 'UPLOAD_NOT_READY');
    });

    it('answers repeated and concurrent completes with the same asset', async () => {
      const bytes = fixture('audio.mp3');
      const p = await prepare(t, alice, metaOf(bytes, 'audio/mpeg')).expect(200);
      await putContent(t, p.body, bytes).expect(200);
      const all = await Promise.all([1, 2, 3, 4].map(() => complete(t, alice, p.body.upload_id)));
      for (const r of all) expect(r.status).toBe(200);
      const ids = new Set(all.map((r) => r.body.asset_id));
      expect(ids.size).toBe(1);
      const again = await complete(t, alice, p.body.upload_id).expect(200);
      expect(again.body.asset_id).toBe(all[0].body.asset_id);
    });

    it('refuses an empty-object violation', async () => {
      const p = await prepare(t, alice, metaOf(fixture('image.jpg'), 'image/jpeg')).expect(200);
      expectError((await t.http().post(`/v1/uploads/${p.body.upload_id}/complete`).set(bearer(alice)).send({ force: true }).expect(400)).body, 'VALIDATION_ERROR');
    });

    it('rereads the stored object: damaged content is UPLOAD_CONTENT_MISMATCH and back to prepared, then a re-send completes', async () => {
      const bytes = fixture('image.webp');
      const p = await prepare(t, alice, metaOf(bytes, 'image/webp')).expect(200);
      await putContent(t, p.body, bytes).expect(200);
      const [stored] = storedObjects(t, `uploads/${p.body.upload_id}`);
      const damaged = readFileSync(stored);
      damaged[damaged.length - 1] ^= 0xff;
      writeFileSync(stored, damaged);
      const res = await complete(t, alice, p.body.upload_id).expect(422);
      expectError(res.body, 'UPLOAD_CONTENT_MISMATCH');
      const after = await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(alice)).expect(200);
      expect(after.body).toMatchObject({ status: 'prepared', error_code: 'UPLOAD_CONTENT_MISMATCH', asset_id: null });
      await until(() => storedObjects(t, `uploads/${p.body.upload_id}`).length === 0);
      await putContent(t, p.body, bytes).expect(200);
      const done = await complete(t, alice, p.body.upload_id).expect(200);
      expect(done.body.status).toBe('completed');
    });

    it('accepts a whole re-send of uploaded content, replacing (and removing) the earlier bytes', async () => {
      const bytes = fixture('image.jpg');
      const p = await prepare(t, alice, metaOf(bytes, 'image/jpeg')).expect(200);
      await putContent(t, p.body, bytes).expect(200);
      const [first] = storedObjects(t, `uploads/${p.body.upload_id}`);
      const again = await putContent(t, p.body, bytes).expect(200);
      expect(again.body.status).toBe('uploaded');
      await until(() => {
        const now = storedObjects(t, `uploads/${p.body.upload_id}`);
        return now.length === 1 && now[0] !== first;
      });
      // A refused re-send keeps the accepted bytes: still uploaded, still completable.
      const wrong = Buffer.from(bytes);
      wrong[wrong.length - 3] ^= 0x10;
      expectError((await putContent(t, p.body, wrong).expect(422)).body, 'CHECKSUM_MISMATCH');
      const after = await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(alice)).expect(200);
      expect(after.body).toMatchObject({ status: 'uploaded', error_code: 'CHECKSUM_MISMATCH' });
      await complete(t, alice, p.body.upload_id).expect(200);
      // Once completed, a PUT changes nothing and answers the completed upload.
      const late = await putContent(t, p.body, bytes).expect(200);
      expect(late.body.status).toBe('completed');
    });

    it('treats lost content the same way', async () => {
      const bytes = fixture('text.txt');
      const p = await prepare(t, alice, metaOf(bytes, 'text/plain')).expect(200);
      await putContent(t, p.body, bytes).expect(200);
      const [stored] = storedObjects(t, `uploads/${p.body.upload_id}`);
      rmSync(stored);
      expectError((await complete(t, alice, p.body.upload_id).expect(422)).body, 'UPLOAD_CONTENT_MISMATCH');
    });
  });

  describe('while bytes arrive', () => {
    it('shows uploading, refuses a second write (409 UPLOAD_IN_PROGRESS) and a complete, then goes on', async () => {
      const bytes = fixture('video.mp4');
      const p = await prepare(t, alice, metaOf(bytes, 'video/mp4')).expect(200);
      const slow = openRequest(t, 'PUT', `/v1/uploads/${p.body.upload_id}/content`, { ...p.body.upload.headers, 'Content-Length': bytes.length });
      slow.req.write(bytes.subarray(0, 1000));
      await until(async () => (await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(alice))).body.status === 'uploading');
      const second = await putContent(t, p.body, bytes).expect(409);
      expectError(second.body, 'UPLOAD_IN_PROGRESS');
      expectError((await complete(t, alice, p.body.upload_id).expect(409)).body, 'UPLOAD_IN_PROGRESS');
      slow.req.end(bytes.subarray(1000));
      const res = await slow.response;
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('uploaded');
    });

    it('an interrupted write leaves the upload prepared, to be re-sent whole (rule 11)', async () => {
      const bytes = fixture('audio.wav');
      const p = await prepare(t, alice, metaOf(bytes, 'audio/wav')).expect(200);
      const slow = openRequest(t, 'PUT', `/v1/uploads/${p.body.upload_id}/content`, { ...p.body.upload.headers, 'Content-Length': bytes.length });
      slow.req.write(bytes.subarray(0, 2000));
      await until(async () => (await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(alice))).body.status === 'uploading');
      slow.req.destroy();
      await until(async () => (await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(alice))).body.status === 'prepared');
      expect(storedObjects(t, `uploads/${p.body.upload_id}`)).toEqual([]);
      await putContent(t, p.body, bytes).expect(200);
    });
  });
});

describe('upload limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ overrides: { assets: { limits: { receiveTimeoutMs: 800 } } } });
  });
  afterAll(() => t.close());

  it('allows at most 8 unfinished upload sessions per account (429 UPLOAD_LIMIT_REACHED with Retry-After)', async () => {
    const a = await createAccount(t);
    const bytes = fixture('text.txt');
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await prepare(t, a, metaOf(bytes, 'text/plain', `f${i}.txt`)).expect(200)).body.upload_id);
    const ninth = await prepare(t, a, metaOf(bytes, 'text/plain', 'f9.txt')).expect(429);
    expectError(ninth.body, 'UPLOAD_LIMIT_REACHED');
    expect(Number(ninth.headers['retry-after'])).toBeGreaterThan(0);
    // Other accounts are not affected.
    const other = await createAccount(t);
    await prepare(t, other, metaOf(bytes, 'text/plain', 'x.txt')).expect(200);
    expect(new Set(ids).size).toBe(8);
  });

  it('a completed session no longer counts', async () => {
    const a = await createAccount(t);
    const bytes = fixture('text.txt');
    const sessions = [];
    for (let i = 0; i < 8; i++) sessions.push((await prepare(t, a, metaOf(bytes, 'text/plain', `f${i}.txt`)).expect(200)).body);
    await prepare(t, a, metaOf(bytes, 'text/plain', 'more.txt')).expect(429);
    await putContent(t, sessions[0], bytes).expect(200);
    await complete(t, a, sessions[0].upload_id).expect(200);
    await prepare(t, a, metaOf(bytes, 'text/plain', 'more.txt')).expect(200);
  });

  it('gives one receive a time limit; a too-slow write is refused and the upload stays usable', async () => {
    const a = await createAccount(t);
    const bytes = fixture('image.png');
    const p = await prepare(t, a, metaOf(bytes, 'image/png')).expect(200);
    const slow = openRequest(t, 'PUT', `/v1/uploads/${p.body.upload_id}/content`, { ...p.body.upload.headers, 'Content-Length': bytes.length });
    slow.req.write(bytes.subarray(0, 10));
    const res = await slow.response;
    expect(res.status).toBe(400);
    expectError(res.body, 'VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/did not arrive within/);
    slow.req.destroy();
    const after = await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(a)).expect(200);
    expect(after.body.status).toBe('prepared');
    await putContent(t, p.body, bytes).expect(200);
  });

  it('refuses files over 64 MiB: by Content-Length at once, and while streaming', async () => {
    const a = await createAccount(t);
    const big = await t.http().post('/v1/uploads').set(bearer(a)).set('Content-Type', 'text/plain').set('X-Filename', 'big.txt').set('Content-Length', String(67_108_865)).send('');
    expect(big.status).toBe(413);
    expectError(big.body, 'PAYLOAD_TOO_LARGE');
    // Chunked, no Content-Length: the limit applies to the bytes themselves.
    const stream = openRequest(t, 'POST', '/v1/uploads', { ...bearer(a), 'Content-Type': 'text/plain', 'X-Filename': 'big.txt', 'Transfer-Encoding': 'chunked' });
    const chunk = Buffer.alloc(1 << 20, 0x61);
    let sent = 0;
    const pump = async () => {
      while (sent <= 67_108_864) {
        if (!stream.req.write(chunk)) await new Promise((r) => stream.req.once('drain', r));
        sent += chunk.length;
      }
      stream.req.end();
    };
    pump().catch(() => undefined);
    const res = await stream.response;
    expect(res.status).toBe(413);
    expectError(res.body, 'PAYLOAD_TOO_LARGE');
    stream.req.destroy();
  });
});

describe('receive slots: per account, across the service, a fair share, and a pace', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ overrides: { assets: { limits: { yieldCheckMs: 100, paceWindowMs: 60_000 } } } });
  });
  afterAll(() => t.close());

  it('receives at most 2 files at once per account and 4 across the service (429 UPLOAD_BUSY with Retry-After)', async () => {
    const bytes = fixture('image.png');
    const accounts = await Promise.all([0, 1, 2, 3, 4].map(() => createAccount(t)));
    const open: ReturnType<typeof openRequest>[] = [];
    const start = async (acc: TestAccount) => {
      const p = await prepare(t, acc, metaOf(bytes, 'image/png')).expect(200);
      const slow = openRequest(t, 'PUT', `/v1/uploads/${p.body.upload_id}/content`, { ...p.body.upload.headers, 'Content-Length': bytes.length });
      slow.req.write(bytes.subarray(0, 10));
      await until(async () => (await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(acc))).body.status === 'uploading');
      return slow;
    };
    const first = await start(accounts[0]);
    open.push(await start(accounts[0]));
    // A third receive of the same account.
    const third = await prepare(t, accounts[0], metaOf(bytes, 'image/png')).expect(200);
    const busy = await putContent(t, third.body, bytes).expect(429);
    expectError(busy.body, 'UPLOAD_BUSY');
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);
    first.req.end(bytes.subarray(10));
    expect((await first.response).status).toBe(200);
    // Four accounts with one receive each fill the service (each at its fair share); a fifth account is refused.
    for (const acc of accounts.slice(1, 4)) open.push(await start(acc));
    const fifth = await prepare(t, accounts[4], metaOf(bytes, 'image/png')).expect(200);
    const platformBusy = await putContent(t, fifth.body, bytes).expect(429);
    expectError(platformBusy.body, 'UPLOAD_BUSY');
    // Direct uploads count as receives too.
    const direct = await t.http().post('/v1/uploads').set(bearer(accounts[4])).set('Content-Type', 'image/png').set('X-Filename', 'a.png').send(bytes).expect(429);
    expectError(direct.body, 'UPLOAD_BUSY');
    // The upload the client was refused is still there, to be sent later (rule 10); nobody gave way (no account was above its share).
    for (const s of open) s.req.end(bytes.subarray(10));
    for (const s of open) expect((await s.response).status).toBe(200);
    await putContent(t, fifth.body, bytes).expect(200);
  });

  it('gives an account below its fair share a slot: a receive of an account holding more gives way (429 UPLOAD_BUSY), and the freed slot is kept for the waiting account', async () => {
    const bytes = Buffer.alloc(200 * 1024, 'a');
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => createAccount(t)));
    const opened: { acc: TestAccount; upload: string; prepared: { upload_id: string; upload: { headers: Record<string, string> } }; slow: ReturnType<typeof openRequest> }[] = [];
    for (const acc of [a, a, b, b]) {
      const p = await prepare(t, acc, metaOf(bytes, 'text/plain')).expect(200);
      const slow = openRequest(t, 'PUT', `/v1/uploads/${p.body.upload_id}/content`, { ...p.body.upload.headers, 'Content-Length': bytes.length });
      slow.req.write(bytes.subarray(0, 10));
      await until(async () => (await t.http().get(`/v1/uploads/${p.body.upload_id}`).set(bearer(acc))).body.status === 'uploading');
      opened.push({ acc, upload: p.body.upload_id, prepared: p.body, slow });
    }
    // Two accounts hold the service's 4 receives; a third account is refused at first...
    const waiting = await prepare(t, c, metaOf(bytes, 'text/plain')).expect(200);
    const refused = await putContent(t, waiting.body, bytes).expect(429);
    expectError(refused.body, 'UPLOAD_BUSY');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // ...and one receive of an account above its share (2 of 4 with 3 accounts: 1 each) gives way.
    const gaveWay = await Promise.race(opened.map(async (o) => ({ o, res: await o.slow.response })));
    expect(gaveWay.res.status).toBe(429);
    expectError(gaveWay.res.body, 'UPLOAD_BUSY');
    expect(Number(gaveWay.res.headers['retry-after'])).toBeGreaterThan(0);
    await until(async () => (await t.http().get(`/v1/uploads/${gaveWay.o.upload}`).set(bearer(gaveWay.o.acc))).body.status === 'prepared');
    // The freed slot is kept for the account that waited: the one that gave way cannot take it back.
    const again = await prepare(t, gaveWay.o.acc, metaOf(bytes, 'text/plain')).expect(200);
    expectError((await putContent(t, again.body, bytes).expect(429)).body, 'UPLOAD_BUSY');
    const done = await putContent(t, waiting.body, bytes).expect(200);
    expect(done.body.status).toBe('uploaded');
    // The others finish as usual.
    const rest = opened.filter((o) => o !== gaveWay.o);
    for (const o of rest) o.slow.req.end(bytes.subarray(10));
    for (const o of rest) expect((await o.slow.response).status).toBe(200);
    // The upload that gave way is sent again, whole.
    expect((await putContent(t, gaveWay.o.prepared, bytes).expect(200)).body.status).toBe('uploaded');
  });
});

describe('a receive too slow to finish in time is ended early and frees its slot', () => {
  let t: TestApp;
  let acc: TestAccount;
  beforeAll(async () => {
    // A 1-second pace window here (10 s in production); the 60-second receive limit as in production.
    t = await startTestApp({ overrides: { assets: { limits: { paceWindowMs: 1000 } } } });
    acc = await createAccount(t);
  });
  afterAll(() => t.close());

  /** Writes `bytes` in pieces of `size` every `everyMs` until the request is answered. */
  const dribble = (slow: ReturnType<typeof openRequest>, bytes: Buffer, size: number, everyMs: number) => {
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= bytes.length || slow.req.destroyed) return;
      slow.req.write(bytes.subarray(sent, sent + size));
      sent += size;
      if (sent >= bytes.length) slow.req.end();
    }, everyMs);
    return { stop: () => clearInterval(timer), sent: () => sent };
  };

  it('ends a prepared upload sent a few bytes at a time within a window, not after 60 s; the upload and both account slots are free again', async () => {
    const bytes = Buffer.alloc(256 * 1024, 'b');
    const slowOnes = [];
    for (let i = 0; i < 2; i++) {
      const p = await prepare(t, acc, metaOf(bytes, 'text/plain')).expect(200);
      const slow = openRequest(t, 'PUT', `/v1/uploads/${p.body.upload_id}/content`, { ...p.body.upload.headers, 'Content-Length': bytes.length });
      slowOnes.push({ p: p.body, slow, started: Date.now(), writer: dribble(slow, bytes, 10, 100) });
    }
    for (const s of slowOnes) {
      const res = await s.slow.response;
      s.writer.stop();
      expect(res.status).toBe(400);
      expectError(res.body, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/too slowly/);
      expect(Date.now() - s.started).toBeLessThan(10_000);
      expect(s.writer.sent()).toBeLessThan(bytes.length);
      s.slow.req.destroy();
      await until(async () => (await t.http().get(`/v1/uploads/${s.p.upload_id}`).set(bearer(acc))).body.status === 'prepared');
    }
    // Both of the account's slots are free: the same uploads go through at once.
    await Promise.all(slowOnes.map((s) => putContent(t, s.p, bytes).expect(200)));
  });

  it('lets a small file arrive slowly when the rest still arrives in time at that pace', async () => {
    const bytes = Buffer.alloc(3000, 'c');
    const p = await prepare(t, acc, metaOf(bytes, 'text/plain')).expect(200);
    const slow = openRequest(t, 'PUT', `/v1/uploads/${p.body.upload_id}/content`, { ...p.body.upload.headers, 'Content-Length': bytes.length });
    const writer = dribble(slow, bytes, 100, 100); // 1 KB/s: three seconds, far below 64 KiB a window
    const res = await slow.response;
    writer.stop();
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('uploaded');
  });

  it('ends a slow direct upload too, with or without Content-Length', async () => {
    for (const headers of [{ 'Content-Length': 256 * 1024 }, { 'Transfer-Encoding': 'chunked' }] as Record<string, string | number>[]) {
      const slow = openRequest(t, 'POST', '/v1/uploads', { ...bearer(acc), 'Content-Type': 'text/plain', 'X-Filename': 'slow.txt', ...headers });
      const started = Date.now();
      const writer = dribble(slow, Buffer.alloc(256 * 1024, 'd'), 10, 100);
      const res = await slow.response;
      writer.stop();
      slow.req.destroy();
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/too slowly/);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    expect((await t.http().get('/v1/assets').set(bearer(acc)).expect(200)).body.data).toEqual([]);
  });
});

describe('upload expiry', () => {
  let t: TestApp;
  let clock: FixedClock;
  let a: TestAccount;
  beforeAll(async () => {
    clock = new FixedClock(new Date());
    t = await startTestApp({ overrides: { clock } });
    a = await createAccount(t);
  });
  afterAll(() => t.close());

  it('expires unregistered uploads after 15 minutes: reads show expired, writes and completes are 410, bytes are removed', async () => {
    const bytes = fixture('image.png');
    const freshKey = newKey();
    const fresh = await prepare(t, a, { ...metaOf(bytes, 'image/png'), idempotency_key: freshKey }).expect(200);
    const sent = await prepare(t, a, metaOf(bytes, 'image/png', 'sent.png')).expect(200);
    await putContent(t, sent.body, bytes).expect(200);
    const done = await prepare(t, a, metaOf(bytes, 'image/png', 'done.png')).expect(200);
    await putContent(t, done.body, bytes).expect(200);
    await complete(t, a, done.body.upload_id).expect(200);
    expect(storedObjects(t, `uploads/${sent.body.upload_id}`)).toHaveLength(1);

    clock.advance(15 * MIN - 1000);
    expect((await t.http().get(`/v1/uploads/${fresh.body.upload_id}`).set(bearer(a)).expect(200)).body.status).toBe('prepared');
    clock.advance(1000);
    for (const u of [fresh, sent]) {
      expect((await t.http().get(`/v1/uploads/${u.body.upload_id}`).set(bearer(a)).expect(200)).body.status).toBe('expired');
    }
    expectError((await putContent(t, fresh.body, bytes).expect(410)).body, 'UPLOAD_EXPIRED');
    expectError((await complete(t, a, sent.body.upload_id).expect(410)).body, 'UPLOAD_EXPIRED');
    // The completed upload and its asset are untouched.
    const completed = await t.http().get(`/v1/uploads/${done.body.upload_id}`).set(bearer(a)).expect(200);
    expect(completed.body.status).toBe('completed');

    const expired = await t.app.get(UploadExpiryJob).sweep();
    expect(expired).toBe(2);
    await until(() => storedObjects(t, `uploads/${sent.body.upload_id}`).length === 0);
    expect(storedObjects(t, `uploads/${done.body.upload_id}`)).toHaveLength(1);
    expect(await t.app.get(UploadExpiryJob).sweep()).toBe(0);
    // The same key answers the expired upload (no credential); a new key makes a new upload.
    const same = await prepare(t, a, { ...metaOf(bytes, 'image/png'), idempotency_key: freshKey }).expect(200);
    expect(same.body).toMatchObject({ upload_id: fresh.body.upload_id, status: 'expired' });
    expect(same.body.upload).toBeUndefined();
    const again = await prepare(t, a, metaOf(bytes, 'image/png')).expect(200);
    expect(again.body.status).toBe('prepared');
  });

  it('expired sessions no longer count against the limit', async () => {
    const b = await createAccount(t);
    const bytes = fixture('text.txt');
    for (let i = 0; i < 8; i++) await prepare(t, b, metaOf(bytes, 'text/plain', `f${i}.txt`)).expect(200);
    await prepare(t, b, metaOf(bytes, 'text/plain', 'f9.txt')).expect(429);
    clock.advance(15 * MIN);
    await prepare(t, b, metaOf(bytes, 'text/plain', 'f9.txt')).expect(200);
  });
});
