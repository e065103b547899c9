import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { ADMIN_CLI, ROOT, buildApps, oneJson, runCli } from './support/operations-cli';
import { WebhookReceiver } from './support/webhook-receiver';

const SERVER = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/**
 * The built service as its own process (what `npm start` runs), so that it can be killed
 * with SIGKILL between two attempts of a delivery.
 */
describe('webhook delivery across a SIGKILL of the service', () => {
  let dataDir: string;
  let port: number;
  let server: ChildProcess | undefined;
  let receiver: WebhookReceiver;
  const env = () => ({
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    LOCAL_SUPPLIER_DELAY_MS: '50',
    WEBHOOKS_ALLOW_LOCAL: '1',
    WEBHOOK_RETRY_SCHEDULE: '4,1',
  });
  const base = () => `http://127.0.0.1:${port}`;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const json = async (res: Response): Promise<any> => res.json();

  async function start(): Promise<void> {
    server = spawn(process.execPath, [SERVER], { cwd: ROOT, env: { ...process.env, ...env() }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    server.stderr!.on('data', (d) => (stderr += d));
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        if ((await fetch(`${base()}/v1/models`)).ok) return;
      } catch {
        // not listening yet
      }
      if (server.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function kill(): Promise<void> {
    const s = server!;
    const exited = new Promise((r) => s.once('exit', r));
    s.kill('SIGKILL');
    await exited;
    server = undefined;
  }

  beforeAll(async () => {
    buildApps(SERVER);
    dataDir = mkdtempSync(join(tmpdir(), 'gensvc-webhooks-kill-'));
    port = await freePort();
    receiver = await new WebhookReceiver().start();
  }, 300_000);
  afterAll(async () => {
    if (server) await kill();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers the message after a SIGKILL between the refused attempt and the next, with the same webhook-id', async () => {
    await start();
    const created = await runCli(ADMIN_CLI, ['account', 'create', '--name', 'Kill test', '--credit', '10'], env());
    expect(created.code).toBe(0);
    const { api_key: apiKey } = oneJson(created.stdout) as { api_key: string };
    const auth = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    // The key reaches the server's read model within a second.
    let ep: { id: string; secret: string } | undefined;
    for (let i = 0; i < 50 && !ep; i++) {
      const res = await fetch(`${base()}/v1/webhook-endpoints`, { method: 'POST', headers: auth, body: JSON.stringify({ url: `${receiver.url}/kill`, events: ['task.created'] }) });
      if (res.status === 201) ep = (await res.json()) as { id: string; secret: string };
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(ep).toBeDefined();
    receiver.answer('/kill', 500, 200);

    const quote = await json(await fetch(`${base()}/v1/quotes`, { method: 'POST', headers: auth, body: JSON.stringify({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'kill' } }) }));
    const task = await json(await fetch(`${base()}/v1/tasks`, { method: 'POST', headers: { ...auth, 'Idempotency-Key': 'kill-task-1' }, body: JSON.stringify({ quote_id: quote.quote_id }) }));

    // The first attempt was refused (500) and recorded; the next one is due 4 s later.
    let delivery: { id: string; message_id: string; status: string; attempts: { status_code: number | null }[] } | undefined;
    for (let i = 0; i < 200; i++) {
      const list = await json(await fetch(`${base()}/v1/webhook-endpoints/${ep!.id}/deliveries`, { headers: auth }));
      delivery = list.data[0];
      if (delivery?.status === 'retrying') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(delivery).toMatchObject({ status: 'retrying', attempts: [{ status_code: 500 }] });
    expect(receiver.on('/kill')).toHaveLength(1);
    await kill();

    await start();
    const [, second] = await receiver.until((r) => {
      const got = r.filter((m) => m.path === '/kill');
      return got.length >= 2 && got;
    }, 30_000);
    expect(second.headers['webhook-id']).toBe(delivery!.message_id);
    expect(receiver.on('/kill')[0].headers['webhook-id']).toBe(delivery!.message_id);
    expect(new Webhook(ep!.secret).verify(second.body, second.headers as Record<string, string>)).toMatchObject({ type: 'task.created', data: { id: task.id } });

    let after: typeof delivery;
    for (let i = 0; i < 100; i++) {
      after = (await json(await fetch(`${base()}/v1/webhook-endpoints/${ep!.id}/deliveries`, { headers: auth }))).data[0];
      if (after?.status === 'delivered') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(after).toMatchObject({ id: delivery!.id, message_id: delivery!.message_id, status: 'delivered', attempts: [{ status_code: 500 }, { status_code: 200 }] });
    expect(receiver.on('/kill')).toHaveLength(2);
  }, 240_000);
});
