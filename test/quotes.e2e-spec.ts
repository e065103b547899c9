import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, expectError, type TestApp } from './support/test-app';
import { bearer, createAccount, type TestAccount } from './support/accounts';

const AMOUNT = /^\d+\.\d{6}$/;
const QUOTE_FIELDS = [
  'currency',
  'estimated_amount',
  'expires_at',
  'max_amount',
  'model',
  'price_version',
  'pricing_mode',
  'quantity',
  'quote_id',
  'resolved_model',
  'unit',
  'unit_price',
].sort();

describe('POST /v1/quotes', () => {
  let t: TestApp;
  let acc: TestAccount;
  const quote = (body: unknown, who: TestAccount = acc) => t.http().post('/v1/quotes').set(bearer(who)).send(body as object);

  beforeAll(async () => {
    t = await startTestApp();
    acc = await createAccount(t, { credit: '10.00' });
  });
  afterAll(() => t.close());

  it('quotes a text request with exactly the spec fields and reserves nothing', async () => {
    const before = Date.now();
    const res = await quote({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'Hello' } }).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(QUOTE_FIELDS);
    expect(res.body).toMatchObject({
      quote_id: expect.stringMatching(/^qt_/),
      model: 'text-writer-lite',
      resolved_model: 'text-writer-lite-2026-11-01',
      currency: 'CNY',
      pricing_mode: 'fixed',
      price_version: expect.any(String),
      estimated_amount: '0.020000',
      max_amount: '0.020000',
      quantity: 1,
      unit: 'request',
      unit_price: '0.020000',
    });
    const expires = Date.parse(res.body.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(15 * 60_000 - 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(15 * 60_000 + 1000);
    const wallet = await t.http().get('/v1/wallet').set(bearer(acc)).expect(200);
    expect(wallet.body).toEqual({ currency: 'CNY', balance: '10.000000', reserved: '0.000000', available: '10.000000' });
  });

  it('merges options with input, applies defaults and prices per parameter', async () => {
    const res = await quote({
      model: 'image-studio-v2',
      capability: 'image.generate',
      input: { prompt: 'a cat' },
      options: { size: '512x512', count: 3 },
      currency: 'CNY',
    }).expect(200);
    expect(res.body).toMatchObject({ unit: 'image', quantity: 3, unit_price: '0.080000', estimated_amount: '0.240000', max_amount: '0.240000' });
    for (const f of ['estimated_amount', 'max_amount', 'unit_price']) expect(res.body[f]).toMatch(AMOUNT);
    const dflt = await quote({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'a cat' } }).expect(200);
    expect(dflt.body).toMatchObject({ quantity: 1, unit_price: '0.200000', estimated_amount: '0.200000' });
  });

  it('prices speech per started 1,000 characters', async () => {
    const res = await quote({ model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'x'.repeat(1001) } }).expect(200);
    expect(res.body).toMatchObject({ unit: '1k_characters', quantity: 2, estimated_amount: '0.300000' });
  });

  it('refuses a parameter combination without a price with 422 PRICE_UNAVAILABLE', async () => {
    const res = await quote({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'a cat', size: '2048x2048' } }).expect(422);
    expectError(res.body, 'PRICE_UNAVAILABLE');
  });

  it.each([
    ['a field in both input and options', { input: { prompt: 'x', tone: 'formal' }, options: { tone: 'casual' } }, 'options.tone'],
    ['an undeclared parameter', { input: { prompt: 'x', colour: 'red' } }, 'input.colour'],
    ['an undeclared parameter in options', { input: { prompt: 'x' }, options: { colour: 'red' } }, 'options.colour'],
    ['a wrong type', { input: { prompt: 'x', max_tokens: 'many' } }, 'input.max_tokens'],
    ['an out-of-range option', { input: { prompt: 'x' }, options: { max_tokens: 5 } }, 'options.max_tokens'],
    ['a missing required parameter', { input: {} }, 'input.prompt'],
    ['asset_ids in options', { input: { prompt: 'x' }, options: { asset_ids: [] } }, 'options.asset_ids'],
    ['voice_id on a model without voices', { input: { prompt: 'x', voice_id: 'voice_1' } }, 'input.voice_id'],
    ['consent_attested on a model without it', { input: { prompt: 'x', consent_attested: true } }, 'input.consent_attested'],
    ['a callback address', { input: { prompt: 'x', callback_url: 'https://evil.example/cb' } }, 'input.callback_url'],
  ])('refuses %s with 400 naming the field', async (_name, extra, field) => {
    const res = await quote({ model: 'text-writer-lite', capability: 'text.generate', ...extra }).expect(400);
    expectError(res.body, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain(field);
  });

  it.each([
    ['an unknown model', { model: 'nope', capability: 'text.generate', input: { prompt: 'x' } }, 'model'],
    ['a capability of another model', { model: 'text-writer-lite', capability: 'image.generate', input: { prompt: 'x' } }, 'capability'],
    ['a currency other than CNY', { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x' }, currency: 'USD' }, 'currency'],
    ['an unknown body field', { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x' }, extra: 1 }, 'extra'],
    ['a missing input', { model: 'text-writer-lite', capability: 'text.generate' }, 'input'],
    ['input that is not an object', { model: 'text-writer-lite', capability: 'text.generate', input: ['x'] }, 'input'],
    ['a too long model id', { model: 'm'.repeat(151), capability: 'text.generate', input: {} }, 'model'],
    ['an empty capability', { model: 'text-writer-lite', capability: '', input: {} }, 'capability'],
  ])('refuses %s with 400', async (_name, body, field) => {
    const res = await quote(body).expect(400);
    expectError(res.body, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain(field);
  });

  it('needs consent for voice cloning and only the caller\'s own assets', async () => {
    const noConsent = await quote({ model: 'voice-clone-std', capability: 'voice.clone', input: { asset_ids: ['ast_x'], name: 'Me', consent_attested: false } }).expect(400);
    expect(noConsent.body.error.message).toContain('input.consent_attested');
    const foreign = await quote({ model: 'voice-clone-std', capability: 'voice.clone', input: { asset_ids: ['ast_unknown'], name: 'Me', consent_attested: true } }).expect(400);
    expectError(foreign.body, 'VALIDATION_ERROR');
    expect(foreign.body.error.message).toContain('input.asset_ids');
  });

  it('refuses at quote time a file the model cannot use (a text file as a voice sample or a reference image): 422 ASSET_TYPE_UNSUPPORTED', async () => {
    const upload = async (mime: string, name: string, file: string) =>
      (await t.http().post('/v1/uploads').set(bearer(acc)).set('Content-Type', mime).set('X-Filename', name).send(readFileSync(join(__dirname, 'fixtures', file))).expect(201)).body.id as string;
    const text = await upload('text/plain', 'notes.txt', 'text.txt');
    const wav = await upload('audio/wav', 'me.wav', 'audio.wav');
    const png = await upload('image/png', 'fox.png', 'image.png');
    const voice = (id: string) => quote({ model: 'voice-clone-std', capability: 'voice.clone', input: { asset_ids: [id], name: 'Me', consent_attested: true } });
    const image = (ids: string[]) => quote({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'a fox', asset_ids: ids } });
    const sample = await voice(text).expect(422);
    expectError(sample.body, 'ASSET_TYPE_UNSUPPORTED');
    expect(sample.body.error.message).toBe(`input.asset_ids[0]: ${text} is text/plain; voice-clone-std takes audio/wav, audio/mpeg`);
    const reference = await image([png, text]).expect(422);
    expectError(reference.body, 'ASSET_TYPE_UNSUPPORTED');
    expect(reference.body.error.message).toContain(`input.asset_ids[1]: ${text} is text/plain`);
    await voice(wav).expect(200);
    await image([png]).expect(200);
    // the model says what it takes
    const model = await t.http().get('/v1/models/voice-clone-std').expect(200);
    expect(model.body.input_schema.properties.asset_ids['x-media-types']).toEqual(['audio/wav', 'audio/mpeg']);
  });

  it('refuses a voice the caller does not own', async () => {
    const res = await quote({ model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'hi', voice_id: 'voice_nope' } }).expect(400);
    expectError(res.body, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain('voice_id');
  });

  it('needs a credential', async () => {
    const res = await t.http().post('/v1/quotes').send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x' } }).expect(401);
    expectError(res.body, 'UNAUTHORIZED');
  });
});
