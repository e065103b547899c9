import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { NotificationSettings } from '@gensvc/notifications';
import { createAccount, type TestAccount } from './support/accounts';
import { CLIENT_CLI, buildClientCli, errorJson, oneJson, runCli } from './support/operations-cli';
import { startServedApp } from './support/served-app';
import type { TestApp } from './support/test-app';
import { WebhookReceiver, type ReceivedMessage } from './support/webhook-receiver';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** `gensvc webhooks ...` (apps/cli, on @gensvc/sdk) against the served app and a receiver on loopback. */
describe('gensvc webhooks (client CLI)', () => {
  let t: TestApp & { baseUrl: string };
  let receiver: WebhookReceiver;
  let account: TestAccount;
  let other: TestAccount;

  const cli = (args: string[], who: TestAccount = account) => runCli(CLIENT_CLI, args, { GENSVC_BASE_URL: t.baseUrl, GENSVC_API_KEY: who.apiKey });
  /** Runs a command that must succeed; returns its one JSON object and its stderr. */
  const ok = async (...args: string[]) => {
    const run = await cli(args);
    if (run.code !== 0) throw new Error(`gensvc ${args.join(' ')} exited ${run.code}: ${run.stdout} ${run.stderr}`);
    return { json: oneJson(run.stdout) as Record<string, any>, stderr: run.stderr };
  };
  /** The same command on a pseudo-terminal (`script`), for the human output. */
  const tty = (command: string) =>
    runCli('/usr/bin/script', ['-qec', `${process.execPath} ${CLIENT_CLI} ${command}`, '/dev/null'], { GENSVC_BASE_URL: t.baseUrl, GENSVC_API_KEY: account.apiKey }, undefined, true);
  const runTask = async (who: TestAccount) => {
    const headers = { Authorization: `Bearer ${who.apiKey}`, 'Content-Type': 'application/json' };
    const quote = (await (await fetch(`${t.baseUrl}/v1/quotes`, { method: 'POST', headers, body: JSON.stringify({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hooks' } }) })).json()) as any;
    const task = (await (await fetch(`${t.baseUrl}/v1/tasks`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': randomUUID() }, body: JSON.stringify({ quote_id: quote.quote_id }) })).json()) as any;
    return task.id as string;
  };
  const until = async <T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const got = await fn();
      if (got) return got;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const verify = (secret: string, m: ReceivedMessage) => new Webhook(secret).verify(m.body, m.headers as Record<string, string>) as { type: string; data: { id: string } };

  beforeAll(async () => {
    buildClientCli();
    t = await startServedApp({ env: { LOCAL_SUPPLIER_DELAY_MS: '50' } });
    const settings = t.app.get(NotificationSettings);
    settings.allowLocal = true;
    settings.retrySchedule = [0.3];
    receiver = await new WebhookReceiver().start();
    account = await createAccount(t, { credit: '100.00' });
    other = await createAccount(t, { credit: '100.00' });
  }, 600_000);
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('creates an endpoint showing its secret once, lists and reads it without, and messages verify with that secret', async () => {
    const created = await ok('webhooks', 'create', `${receiver.url}/cli`, '--events', 'task.created,task.succeeded', '--description', 'from the cli');
    expect(created.json).toEqual({
      id: expect.stringMatching(/^whe_/),
      url: `${receiver.url}/cli`,
      events: ['task.created', 'task.succeeded'],
      description: 'from the cli',
      status: 'enabled',
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    expect(created.stderr).toContain(`The signing secret of ${created.json.id} is shown only now`);
    const { id, secret } = created.json;

    const list = (await ok('webhooks', 'list')).json;
    expect(list).toMatchObject({ page: 1, has_more: false, data: [{ id, status: 'enabled' }] });
    expect(list.data[0]).not.toHaveProperty('secret');
    const got = (await ok('webhooks', 'get', id)).json;
    expect(got).toEqual({ ...created.json, secret: undefined });
    expect(got).not.toHaveProperty('secret');
    // Another account sees nothing of it.
    const foreign = await cli(['webhooks', 'get', id], other);
    expect(foreign.code).toBe(1);
    expect(errorJson(foreign.stderr).error).toMatchObject({ code: 'NOT_FOUND' });

    const taskId = await runTask(account);
    const [first, second] = await receiver.until((r) => {
      const got = r.filter((m) => m.path === '/cli');
      return got.length >= 2 && got;
    });
    expect([verify(secret, first), verify(secret, second)].map((m) => [m.type, m.data.id])).toEqual([
      ['task.created', taskId],
      ['task.succeeded', taskId],
    ]);
    const deliveries = await until('both delivered', async () => {
      const d = (await ok('webhooks', 'deliveries', id)).json;
      return d.data.length === 2 && d.data.every((x: { status: string }) => x.status === 'delivered') && d;
    });
    expect(deliveries.data.map((d: { event_type: string }) => d.event_type)).toEqual(['task.succeeded', 'task.created']);
    expect(deliveries.data[0]).toMatchObject({ message_id: second.headers['webhook-id'], attempts: [{ status_code: 204, error: null }] });

    const deleted = (await ok('webhooks', 'delete', id)).json;
    expect(deleted).toEqual({ id, deleted: true });
    expect(errorJson((await cli(['webhooks', 'get', id])).stderr).error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('retries a failed delivery with the same webhook-id', async () => {
    const { id, secret } = (await ok('webhooks', 'create', `${receiver.url}/retry`, '--events', 'task.created', '--quiet')).json;
    receiver.answer('/retry', 500);
    await runTask(account);
    // One attempt and one retry after 0.3 s, both refused: failed.
    const failed = await until('the delivery to fail', async () => {
      const [d] = (await ok('webhooks', 'deliveries', id)).json.data;
      return d?.status === 'failed' && d;
    });
    expect(failed.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500]);
    receiver.answer('/retry', 204);

    const retried = (await ok('webhooks', 'retry', id, failed.id)).json;
    expect(retried).toEqual({ id: failed.id, status: 'pending' });
    const again = await receiver.until((r) => {
      const got = r.filter((m) => m.path === '/retry');
      return got.length >= 3 && got[2];
    });
    expect(again.headers['webhook-id']).toBe(failed.message_id);
    expect(verify(secret, again).type).toBe('task.created');
    const delivered = await until('the delivery to be delivered', async () => {
      const [d] = (await ok('webhooks', 'deliveries', id)).json.data;
      return d?.status === 'delivered' && d;
    });
    expect(delivered.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 204]);
    const unknown = await cli(['webhooks', 'retry', id, 'whd_nope']);
    expect(unknown.code).toBe(1);
    expect(errorJson(unknown.stderr).error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('rotates the secret: shown once, and both secrets sign during the overlap', async () => {
    const created = (await ok('webhooks', 'create', `${receiver.url}/rotate`, '--events', '*')).json;
    const rotated = await ok('webhooks', 'rotate', created.id);
    expect(rotated.json).toMatchObject({ id: created.id, status: 'enabled', secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.json.secret).not.toBe(created.secret);
    expect(rotated.stderr).toContain('The previous secret keeps signing for 24 hours.');
    await runTask(account);
    const m = await receiver.until((r) => r.find((x) => x.path === '/rotate'));
    const signatures = String(m.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const secret of [created.secret, rotated.json.secret]) expect(verify(secret, m).type).toBe('task.created');
  });

  it('refuses bad input: the API error on stderr with exit 1, usage errors with exit 2', async () => {
    const badType = await cli(['webhooks', 'create', `${receiver.url}/bad`, '--events', 'task.exploded']);
    expect(badType.code).toBe(1);
    expect(badType.stdout).toBe('');
    expect(errorJson(badType.stderr).error).toMatchObject({ code: 'VALIDATION_ERROR', request_id: expect.any(String) });
    const internal = await cli(['webhooks', 'create', 'http://10.0.0.7/hook', '--events', '*']);
    expect(internal.code).toBe(1);
    expect(errorJson(internal.stderr).error).toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN' });
    const noEvents = await cli(['webhooks', 'create', `${receiver.url}/bad`]);
    expect(noEvents.code).toBe(2);
    expect(errorJson(noEvents.stderr).error.message).toContain("required option '--events <types>' not specified");
    const typo = await cli(['webhooks', 'delivries', 'whe_x']);
    expect(typo.code).toBe(2);
    expect(errorJson(typo.stderr).error.message).toContain('(Did you mean deliveries?)');
    expect((await ok('webhooks', 'list')).json.data.map((e: { url: string }) => e.url)).not.toContain(`${receiver.url}/bad`);
  });

  it('has help for every webhooks command, and tables on a terminal', async () => {
    const help = await cli(['webhooks', '--help']);
    expect(help.code).toBe(0);
    for (const command of ['create', 'list', 'get', 'delete', 'rotate', 'deliveries', 'retry']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect((await cli(['help'])).stdout).toMatch(/^ {2}webhooks\b/m);
    const createHelp = await cli(['webhooks', 'create', '--help']);
    expect(createHelp.stdout).toMatch(/^Usage: gensvc webhooks create \[options\] <url>/);
    expect(createHelp.stdout).toContain('task.succeeded');

    const { id } = (await ok('webhooks', 'create', `${receiver.url}/table`, '--events', 'task.created', '--quiet')).json;
    await runTask(account);
    await until('a delivery', async () => (await ok('webhooks', 'deliveries', id)).json.data[0]?.status === 'delivered');
    const list = await tty('webhooks list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ID\s+URL\s+EVENTS\s+STATUS\s+DESCRIPTION\s+CREATED_AT\s*$/m);
    expect(list.stdout).toMatch(new RegExp(`^${id}\\s+http://127\\.0\\.0\\.1:\\d+/table\\s+\\["task\\.created"\\]\\s+enabled\\s+-\\s+\\S+\\s*$`, 'm'));
    const deliveries = await tty(`webhooks deliveries ${id}`);
    expect(deliveries.stdout).toMatch(/^ID\s+EVENT_TYPE\s+STATUS\s+ATTEMPTS\s+LAST_ATTEMPT\s+NEXT_ATTEMPT_AT\s+MESSAGE_ID\s*$/m);
    expect(deliveries.stdout).toMatch(/^whd_\S+\s+task\.created\s+delivered\s+1\s+204\s+-\s+msg_\S+\s*$/m);
    const rotated = await tty(`webhooks rotate ${id}`);
    expect(rotated.stdout).toMatch(/^secret\s+whsec_\S+\s*$/m);
    const missing = await tty('webhooks get whe_nope');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^error: NOT_FOUND: .+ \(request req_[0-9a-f]+\)/m);
  });
});
