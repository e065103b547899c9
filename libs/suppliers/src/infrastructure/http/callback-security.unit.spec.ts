import { CallbackTokens, isLocalBaseUrl, signCallback, verifyCallback } from './callback-security';

describe('callback tokens', () => {
  const tokens = new CallbackTokens('s'.repeat(40));

  it('seal a task id opaquely and stably, and open only their own tokens', () => {
    const t = tokens.seal('task_01jabc');
    expect(t).not.toContain('task');
    expect(tokens.seal('task_01jabc')).toBe(t);
    expect(tokens.seal('task_01jabd')).not.toBe(t);
    expect(tokens.open(t)).toBe('task_01jabc');
    expect(new CallbackTokens('x'.repeat(40)).open(t)).toBeNull();
    const raw = Buffer.from(t, 'base64url');
    raw[14] ^= 1;
    expect(tokens.open(raw.toString('base64url'))).toBeNull();
    expect(tokens.open('../../etc/passwd')).toBeNull();
  });
});

describe('callback signatures', () => {
  const secret = 'callback-secret-0123456789';
  const body = Buffer.from('{"status":"succeeded"}');
  const now = 1_800_000_000_000;
  const ts = now / 1000;

  it('accept a fresh, correctly signed body', () => {
    expect(verifyCallback(secret, { timestamp: String(ts), signature: signCallback(secret, ts, body) }, body, now, 300)).toBe('ok');
    expect(verifyCallback(secret, { timestamp: String(ts), signature: `v0=abc, ${signCallback(secret, ts, body)}` }, body, now, 300)).toBe('ok');
  });

  it('refuse a changed body, a wrong secret, a missing header and a stale or future timestamp', () => {
    const sig = signCallback(secret, ts, body);
    expect(verifyCallback(secret, { timestamp: String(ts), signature: sig }, Buffer.from('{"status":"failed"}'), now, 300)).toBe('bad_signature');
    expect(verifyCallback('other-secret-0123456789', { timestamp: String(ts), signature: sig }, body, now, 300)).toBe('bad_signature');
    expect(verifyCallback(secret, { timestamp: String(ts) }, body, now, 300)).toBe('missing');
    expect(verifyCallback(secret, { timestamp: 'yesterday', signature: sig }, body, now, 300)).toBe('bad_timestamp');
    const old = ts - 301;
    expect(verifyCallback(secret, { timestamp: String(old), signature: signCallback(secret, old, body) }, body, now, 300)).toBe('stale');
    const future = ts + 301;
    expect(verifyCallback(secret, { timestamp: String(future), signature: signCallback(secret, future, body) }, body, now, 300)).toBe('stale');
    // the signature binds the timestamp: moving it forward does not refresh an old callback
    expect(verifyCallback(secret, { timestamp: String(ts), signature: signCallback(secret, old, body) }, body, now, 300)).toBe('bad_signature');
  });
});

describe('local base URLs', () => {
  it.each([
    ['http://127.0.0.1:3000', true],
    ['http://localhost:3000', true],
    ['http://[::1]:3000', true],
    ['http://10.1.2.3', true],
    ['http://192.168.0.10', true],
    ['http://172.16.5.5', true],
    ['http://169.254.1.1', true],
    ['http://[fd00::1]', true],
    ['http://[::ffff:127.0.0.1]', true],
    ['http://printer.local', true],
    ['http://api.internal', true],
    ['http://gensvc', true],
    ['https://api.example.com', false],
    ['https://203.0.113.9', true],
    ['https://8.8.8.8', false],
  ])('%s → %s', (url, local) => expect(isLocalBaseUrl(url)).toBe(local));
});
