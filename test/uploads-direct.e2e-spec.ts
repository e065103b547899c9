import { bearer, createAccount, type TestAccount } from './support/accounts';
import { expectError, startTestApp, type TestApp } from './support/test-app';
import { FIXTURES, fixture, sendRaw, sha256, storedObjects } from './fixtures/helpers';

describe('direct upload (POST /v1/uploads)', () => {
  let t: TestApp;
  let alice: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    alice = await createAccount(t);
  });
  afterAll(() => t.close());

  const direct = (bytes: Buffer, headers: Record<string, string>) => {
    const req = t.http().post('/v1/uploads').set(bearer(alice));
    for (const [k, v] of Object.entries(headers)) req.set(k, v);
    return sendRaw(req, bytes);
  };

  it.each(FIXTURES)('registers a real $file ($mime) at once: 201 with the asset', async ({ file, mime }) => {
    const bytes = fixture(file);
    const name = `résumé ${file}`;
    const res = await direct(bytes, { 'Content-Type': mime, 'X-Filename': encodeURIComponent(name) }).expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ast_/),
      name,
      mime,
      size: bytes.length,
      checksum: sha256(bytes),
      created_at: expect.any(String),
      url: expect.any(String),
      download_url: expect.any(String),
      download_name: name,
      links_expire_at: expect.any(String),
    });
    const link = new URL(res.body.download_url);
    const got = await t.http().get(link.pathname + link.search).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(got.status).toBe(200);
    expect(Buffer.compare(got.body as Buffer, bytes)).toBe(0);
    await t.http().get(`/v1/assets/${res.body.id}`).set(bearer(alice)).expect(200);
  });

  it('accepts a UTF-8 charset parameter on text', async () => {
    await direct(fixture('text.txt'), { 'Content-Type': 'text/plain; charset=utf-8', 'X-Filename': 'a.txt' }).expect(201);
  });

  it.each([
    [undefined, 'no Content-Type'],
    ['image/gif', 'a type not on the list'],
    ['application/octet-stream', 'a generic type'],
    ['text/plain; charset=iso-8859-1', 'a non-UTF-8 charset'],
  ])('refuses %s (%s) with 415', async (type: string | undefined, _why: string) => {
    const req = t.http().post('/v1/uploads').set(bearer(alice)).set('X-Filename', 'a.bin');
    if (type) req.set('Content-Type', type);
    const res = await sendRaw(req, fixture('text.txt')).expect(415);
    expectError(res.body, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it.each([
    [undefined, 'missing'],
    ['', 'empty'],
    ['a%2Fb.png', 'a path separator'],
    ['..%5C..%5Cwin.ini', 'a backslash'],
    ['a%0Ab.png', 'a control character'],
    ['a%00.png', 'a NUL'],
    ['%E0%A4%A', 'broken URL encoding'],
    ['..', 'a dot-dot name'],
    ['x'.repeat(201), 'over 200 characters'],
  ])('refuses X-Filename %j (%s) with VALIDATION_ERROR', async (name: string | undefined, _why: string) => {
    const headers: Record<string, string> = { 'Content-Type': 'image/png' };
    if (name !== undefined) headers['X-Filename'] = name;
    const res = await direct(fixture('image.png'), headers).expect(400);
    expectError(res.body, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain('X-Filename');
  });

  it('runs the same content checks as prepared uploads, storing nothing refused', async () => {
    const before = storedObjects(t, 'assets').length;
    expectError((await direct(fixture('image.png'), { 'Content-Type': 'image/jpeg', 'X-Filename': 'a.jpg' }).expect(422)).body, 'FILE_TYPE_MISMATCH');
    expectError((await direct(fixture('video.mp4'), { 'Content-Type': 'audio/mpeg', 'X-Filename': 'a.mp3' }).expect(422)).body, 'FILE_TYPE_MISMATCH');
    expectError((await direct(fixture('image.webp'), { 'Content-Type': 'text/plain', 'X-Filename': 'a.txt' }).expect(422)).body, 'FILE_TYPE_MISMATCH');
    expectError((await direct(Buffer.from([0x61, 0xff, 0x62]), { 'Content-Type': 'text/plain', 'X-Filename': 'a.txt' }).expect(422)).body, 'INVALID_TEXT');
    expectError((await direct(Buffer.from('{"a": tru}'), { 'Content-Type': 'application/json', 'X-Filename': 'a.json' }).expect(422)).body, 'INVALID_JSON');
    expectError((await direct(Buffer.from('plain words'), { 'Content-Type': 'application/json', 'X-Filename': 'a.json' }).expect(422)).body, 'INVALID_JSON');
    expectError((await direct(Buffer.alloc(0), { 'Content-Type': 'text/plain', 'X-Filename': 'a.txt' }).expect(400)).body, 'VALIDATION_ERROR');
    expect(storedObjects(t, 'assets').length).toBe(before);
  });

  it('calls UTF-16 and UTF-32 text with a byte-order mark INVALID_TEXT (not the audio/mpeg its first bytes resemble), storing nothing', async () => {
    const before = storedObjects(t, 'assets').length;
    const text = 'Hello, wide text: café\n'.repeat(20);
    const utf16be = Buffer.from(text, 'utf16le').swap16();
    const utf32le = Buffer.concat([...text].map((c) => { const b = Buffer.alloc(4); b.writeUInt32LE(c.codePointAt(0)!); return b; }));
    for (const [bytes, encoding] of [
      [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), 'UTF-16'],
      [Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be]), 'UTF-16'],
      [Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), utf32le]), 'UTF-32'],
    ] as const) {
      const res = await direct(bytes, { 'Content-Type': 'text/plain', 'X-Filename': 'wide.txt' }).expect(422);
      expectError(res.body, 'INVALID_TEXT');
      expect(res.body.error.message).toContain(encoding);
      expectError((await direct(bytes, { 'Content-Type': 'application/json', 'X-Filename': 'wide.json' }).expect(422)).body, 'INVALID_JSON');
    }
    expect(storedObjects(t, 'assets').length).toBe(before);
  });

  it('reads an X-Filename sent as raw UTF-8 as UTF-8 (café stays café)', async () => {
    const name = 'café ☕ 日本.txt';
    // Node's client sends each character of a header string as one byte: these are the name's UTF-8 bytes.
    const res = await direct(Buffer.from('hi'), { 'Content-Type': 'text/plain', 'X-Filename': Buffer.from(name, 'utf8').toString('latin1') }).expect(201);
    expect(res.body.name).toBe(name);
    const asset = await t.http().get(`/v1/assets/${res.body.id}`).set(bearer(alice)).expect(200);
    expect(asset.body).toMatchObject({ name, download_name: name });
    const link = new URL(asset.body.download_url);
    const file = await t.http().get(`${link.pathname}${link.search}`).expect(200);
    expect(file.headers['content-disposition']).toContain(`filename*=UTF-8''${encodeURIComponent(name)}`);
    // The URL-encoded form is read as before.
    expect((await direct(Buffer.from('hi'), { 'Content-Type': 'text/plain', 'X-Filename': encodeURIComponent(name) }).expect(201)).body.name).toBe(name);
  });

  it('needs an account credential with the create scope', async () => {
    await sendRaw(t.http().post('/v1/uploads').set('Content-Type', 'image/png').set('X-Filename', 'a.png'), fixture('image.png')).expect(401);
  });
});
