import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AuthenticationError, Gensvc, NotFoundError, QuoteAboveLimitError, ValidationError, type Task } from '@gensvc/sdk';
import { downloadAsset, uploadFile } from '@gensvc/sdk/node';
import { createAccount, type TestAccount } from './support/accounts';
import { startServedApp } from './support/served-app';

const ROOT = join(__dirname, '..');
const FIXTURES = join(__dirname, 'fixtures');

describe('@gensvc/sdk against the running server', () => {
  let t: Awaited<ReturnType<typeof startServedApp>>;
  let account: TestAccount;
  let gensvc: Gensvc;

  beforeAll(async () => {
    t = await startServedApp();
    account = await createAccount(t, { name: 'sdk user', credit: '50.00' });
    gensvc = new Gensvc({ baseUrl: t.baseUrl, apiKey: account.apiKey });
  });
  afterAll(() => t?.close());

  it('has committed types and document equal to what the server serves (no drift)', async () => {
    // Asynchronously: the server answering the generator runs in this process.
    const run = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, [join(ROOT, 'packages/sdk/scripts/generate.mjs'), '--check', '--url', t.baseUrl], { timeout: 120_000 }, (err, _out, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
      ),
    );
    expect(run.stderr).toContain('up to date');
    expect(run.code).toBe(0);
  });

  it('runs a task: quote, create (idempotent), wait with updates, list by pages', async () => {
    const quote = await gensvc.quotes.create({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hello' } });
    const key = `sdk-e2e-${Date.now()}`;
    const created = await gensvc.tasks.create({ quote_id: quote.quote_id, title: 'sdk' }, { idempotencyKey: key });
    const again = await gensvc.tasks.create({ quote_id: quote.quote_id, title: 'sdk' }, { idempotencyKey: key });
    expect(again.id).toBe(created.id);
    const seen: Task['status'][] = [];
    const done = await gensvc.tasks.wait(created.id, { intervalMs: 50, onUpdate: (task) => seen.push(task.status) });
    expect(done).toMatchObject({ id: created.id, status: 'succeeded', settlement_status: 'settled', charged_amount: quote.estimated_amount });
    expect(seen[seen.length - 1]).toBe('succeeded');
    const ids: string[] = [];
    for await (const task of gensvc.tasks.iterate({ limit: 1 })) ids.push(task.id);
    expect(ids).toEqual([created.id]);
    const wallet = await gensvc.wallet.get();
    expect(wallet.balance).not.toBe('50.000000');
    let bills = 0;
    for await (const bill of gensvc.billing.iterate({ limit: 1 })) bills += bill.task_id === created.id ? 1 : 0;
    expect(bills).toBe(1);
  });

  it('throws typed errors with the API code, status and request id', async () => {
    const missing = await gensvc.tasks.get('task_doesnotexist').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: expect.stringMatching(/.+/) });
    const bad = await gensvc.quotes.create({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'x', size: '3x3' } }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    const anonymous = await new Gensvc({ baseUrl: t.baseUrl }).wallet.get().catch((e: unknown) => e);
    expect(anonymous).toBeInstanceOf(AuthenticationError);
    expect((anonymous as AuthenticationError).code).toBe('UNAUTHORIZED');
  });

  it('uploads a file from disk and bytes from memory; the same file again resumes the same upload', async () => {
    const path = join(FIXTURES, 'audio.wav');
    const progress: number[] = [];
    const up = await uploadFile(gensvc, path, { onProgress: (p) => progress.push(p.loaded) });
    const checksum = createHash('sha256').update(readFileSync(path)).digest('hex');
    expect(up).toMatchObject({ status: 'completed', mime: 'audio/wav', checksum, asset_id: expect.stringMatching(/^ast_/) });
    expect(progress[progress.length - 1]).toBe(readFileSync(path).length);
    const again = await uploadFile(gensvc, path);
    expect(again.upload_id).toBe(up.upload_id);
    const asset = await gensvc.assets.get(up.asset_id!);
    expect(asset).toMatchObject({ id: up.asset_id, checksum, mime: 'audio/wav' });
    const fromBytes = await gensvc.uploads.upload(readFileSync(join(FIXTURES, 'image.png')), { name: 'copy.png' });
    expect(fromBytes).toMatchObject({ status: 'completed', mime: 'image/png' });
    expect(await gensvc.assets.delete(fromBytes.asset_id!)).toMatchObject({ id: fromBytes.asset_id, deleted: true });
    // the same bytes under the same name again: a new asset, not the deleted one
    const anew = await gensvc.uploads.upload(readFileSync(join(FIXTURES, 'image.png')), { name: 'copy.png' });
    expect(anew.asset_id).not.toBe(fromBytes.asset_id);
    expect(await gensvc.assets.get(anew.asset_id!)).toMatchObject({ id: anew.asset_id, checksum: fromBytes.checksum });
  });

  it('run: one call uploads a file by path, quotes, creates, follows the task and returns the result; the same key again follows the same task', async () => {
    const quotes: string[] = [];
    const key = `sdk-run-${Date.now()}`;
    const done = await gensvc.run('voice-clone-std', { name: 'Ann', consent_attested: true }, {
      files: [join(FIXTURES, 'audio.wav')],
      maxAmount: '10',
      idempotencyKey: key,
      onQuote: (q) => quotes.push(q.max_amount),
    });
    expect(done).toMatchObject({ status: 'succeeded', settlement_status: 'settled', capability: 'voice.clone', output: { voice_id: expect.stringMatching(/^voice_/) } });
    expect(quotes).toHaveLength(1);
    const again = await gensvc.run('voice-clone-std', { name: 'Ann', consent_attested: true }, { files: [join(FIXTURES, 'audio.wav')], idempotencyKey: key });
    expect(again.id).toBe(done.id);

    const out = mkdtempSync(join(tmpdir(), 'sdk-run-'));
    try {
      const file = await downloadAsset(gensvc, done.output!.asset_ids[0], out);
      const asset = await gensvc.assets.get(done.output!.asset_ids[0]);
      expect(createHash('sha256').update(readFileSync(file.path)).digest('hex')).toBe(asset.checksum);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('run refuses a quote above maxAmount without creating a task', async () => {
    const before = await gensvc.wallet.get();
    const err = await gensvc.run('image-studio-v2', { prompt: 'a fox', count: 4 }, { maxAmount: '0.01' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuoteAboveLimitError);
    expect(await gensvc.wallet.get()).toEqual(before);
  });
});
