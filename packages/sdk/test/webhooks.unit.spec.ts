import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError, verifyWebhook } from '../src/index';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ type: 'task.succeeded', timestamp: '2026-11-26T10:00:00.000Z', data: { id: 'task_1', status: 'succeeded' } });
const now = Date.UTC(2026, 10, 26, 10, 0, 5);

/** Headers as a Standard Webhooks sender (the reference library) makes them. */
function signed(payload = body, key = secret, at = new Date(now)): Record<string, string> {
  return { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign('msg_1', at, payload) };
}

describe('verifyWebhook (Standard Webhooks)', () => {
  it('accepts what the reference library signs, from a header record or Headers, as text or bytes', async () => {
    const expected = { id: 'msg_1', type: 'task.succeeded', timestamp: '2026-11-26T10:00:00.000Z', data: { id: 'task_1', status: 'succeeded' } };
    expect(await verifyWebhook(body, signed(), secret, { now })).toEqual(expected);
    expect(await verifyWebhook(new TextEncoder().encode(body), new Headers(signed()), secret, { now })).toEqual(expected);
    const upper = Object.fromEntries(Object.entries(signed()).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await verifyWebhook(body, upper, secret, { now })).toEqual(expected);
  });

  it('accepts a message signed by either secret during a rotation (two signatures)', async () => {
    const old = `whsec_${randomBytes(32).toString('base64')}`;
    const h = signed();
    h['webhook-signature'] = `${signed(body, old)['webhook-signature']} ${h['webhook-signature']}`;
    expect((await verifyWebhook(body, h, [old], { now })).id).toBe('msg_1');
    expect((await verifyWebhook(body, h, secret, { now })).id).toBe('msg_1');
  });

  it.each([
    ['a changed body', body.replace('succeeded"}', 'failed"}'), signed(), secret],
    ['another secret', body, signed(), `whsec_${randomBytes(32).toString('base64')}`],
    ['a timestamp 6 minutes old', body, signed(body, secret, new Date(now - 6 * 60_000)), secret],
    ['a missing signature', body, { ...signed(), 'webhook-signature': '' }, secret],
    ['a changed id', body, { ...signed(), 'webhook-id': 'msg_2' }, secret],
  ])('refuses %s', async (_what, payload, headers, key) => {
    await expect(verifyWebhook(payload, headers, key, { now })).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});
