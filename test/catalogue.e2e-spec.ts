import { startTestApp, expectError, type TestApp } from './support/test-app';

const AMOUNT = /^\d+\.\d{6}$/;

describe('public catalogue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('lists models without a credential, with several modalities and no supplier secrets', async () => {
    const res = await t.http().get('/v1/models').expect(200);
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    expect(res.body).toEqual({ data: expect.any(Array), page: 1, limit: expect.any(Number), has_more: false });
    const modalities = new Set(res.body.data.map((m: { modality: string }) => m.modality));
    expect([...modalities].sort()).toEqual(['audio', 'image', 'text']);
    for (const m of res.body.data) {
      expect(Object.keys(m).sort()).toEqual(['available', 'capabilities', 'id', 'modality', 'name', 'prices', 'resolved_model']);
    }
    expect(JSON.stringify(res.body)).not.toMatch(/supplier|local-/);
  });

  it('returns one model with input_schema and prices', async () => {
    const res = await t.http().get('/v1/models/image-studio-v2').expect(200);
    expect(res.body.input_schema.properties.size.enum).toContain('1024x1024');
    expect(res.body.prices).toHaveLength(2);
    for (const p of res.body.prices) {
      expect(p).toEqual({
        model: 'image-studio-v2',
        capability: 'image.generate',
        unit: 'image',
        unit_price: expect.stringMatching(AMOUNT),
        currency: 'CNY',
        pricing_mode: 'fixed',
        price_version: expect.any(String),
        parameters: { size: expect.any(String) },
      });
    }
  });

  it('answers an unknown model with the error object', async () => {
    const res = await t.http().get('/v1/models/nope').expect(404);
    expectError(res.body, 'NOT_FOUND');
    expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  });

  it('lists capabilities as strings and prices as objects', async () => {
    const caps = await t.http().get('/v1/capabilities').expect(200);
    expect(caps.body.data).toEqual(expect.arrayContaining(['text.generate', 'image.generate', 'speech.synthesize', 'voice.clone']));
    const prices = await t.http().get('/v1/prices').expect(200);
    expect(prices.body.data.length).toBeGreaterThanOrEqual(5);
    // One price version per model: a price change gives that model's prices a new one.
    const versions = new Map<string, Set<string>>();
    for (const p of prices.body.data as { model: string; price_version: string }[]) versions.set(p.model, (versions.get(p.model) ?? new Set()).add(p.price_version));
    expect([...versions.values()].every((v) => v.size === 1)).toBe(true);
    expect(new Set([...versions.values()].flatMap((v) => [...v])).size).toBe(versions.size);
  });

  it('filters the model list by capability', async () => {
    const res = await t.http().get('/v1/models?capability=voice.clone').expect(200);
    expect(res.body.data.map((m: { id: string }) => m.id)).toEqual(['voice-clone-std']);
  });
});

describe('HTTP conventions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers unknown routes with NOT_FOUND in the error shape', async () => {
    const res = await t.http().get('/v1/nothing-here').expect(404);
    expectError(res.body, 'NOT_FOUND');
  });

  it('reuses a well-formed client request id and replaces a malformed one', async () => {
    const ok = await t.http().get('/v1/capabilities').set('X-Request-Id', 'client.req-1').expect(200);
    expect(ok.headers['x-request-id']).toBe('client.req-1');
    const bad = await t.http().get('/v1/capabilities').set('X-Request-Id', 'has space!').expect(200);
    expect(bad.headers['x-request-id']).not.toBe('has space!');
    const err = await t.http().get('/v1/models/x').set('X-Request-Id', 'abc_123').expect(404);
    expect(err.body.error.request_id).toBe('abc_123');
  });

  it('answers malformed JSON with VALIDATION_ERROR, not an HTML page', async () => {
    const res = await t.http().post('/v1/quotes').set('Content-Type', 'application/json').send('{"model": ').expect(400);
    expectError(res.body, 'VALIDATION_ERROR');
  });

  it('answers an oversized JSON body with PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ x: 'a'.repeat(1_200_000) });
    const res = await t.http().post('/v1/quotes').set('Content-Type', 'application/json').send(big).expect(413);
    expectError(res.body, 'PAYLOAD_TOO_LARGE');
  });

  it('serves liveness and readiness', async () => {
    await t.http().get('/health/live').expect(200, { status: 'ok' });
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body.status).toBe('ready');
  });
});
