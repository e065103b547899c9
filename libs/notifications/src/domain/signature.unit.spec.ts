import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signatureHeader } from './signature';

describe('Standard Webhooks signature', () => {
  it('given one secret, then the header is what the standardwebhooks package signs and verifies', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"type":"task.created","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';
    const ts = Math.floor(Date.now() / 1000);
    const header = signatureHeader([secret], 'msg_1', ts, body);
    const wh = new Webhook(secret);
    expect(header).toBe(wh.sign('msg_1', new Date(ts * 1000), body));
    expect(wh.verify(body, { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': header })).toEqual(JSON.parse(body));
  });

  it('given two secrets, then two space-separated signatures, each verifying with its own secret only', () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    const ts = Math.floor(Date.now() / 1000);
    const header = signatureHeader([a, b], 'msg_2', ts, '{}');
    const [sa, sb] = header.split(' ');
    const headers = (sig: string) => ({ 'webhook-id': 'msg_2', 'webhook-timestamp': String(ts), 'webhook-signature': sig });
    expect(new Webhook(a).verify('{}', headers(header))).toEqual({});
    expect(new Webhook(b).verify('{}', headers(header))).toEqual({});
    expect(new Webhook(b).verify('{}', headers(sb))).toEqual({});
    expect(() => new Webhook(b).verify('{}', headers(sa))).toThrow();
  });
});
