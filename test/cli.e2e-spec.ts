import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Clock } from '@gensvc/kernel';
import { loadConfig } from '@gensvc/config';
import { createApp } from '../apps/api/src/bootstrap';
import { uploadKey } from '@gensvc/sdk';
import { inspectFile } from '@gensvc/sdk/node';
import { createAccount, type TestAccount } from './support/accounts';
import { CLIENT_CLI, buildClientCli, errorJson, oneJson, runCli } from './support/operations-cli';
import { freePort } from './support/served-app';

const FIXTURES = join(__dirname, 'fixtures');
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The wall clock, movable forward (upload expiry without waiting 15 minutes). */
class ShiftedClock extends Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

describe('gensvc client CLI (on @gensvc/sdk) against the running server', () => {
  let app: NestExpressApplication;
  let dataDir: string;
  let work: string;
  let baseUrl: string;
  let account: TestAccount;
  const clock = new ShiftedClock();

  const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(CLIENT_CLI, args, { GENSVC_BASE_URL: baseUrl, GENSVC_API_KEY: account.apiKey, ...env });
  /** Runs a command that must succeed; returns its one JSON object. */
  const ok = async (...args: string[]) => {
    const run = await cli(args);
    if (run.code !== 0) throw new Error(`gensvc ${args.join(' ')} exited ${run.code}: ${run.stdout} ${run.stderr}`);
    return oneJson(run.stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  beforeAll(async () => {
    buildClientCli();
    dataDir = mkdtempSync(join(tmpdir(), 'gensvc-cli-'));
    work = mkdtempSync(join(tmpdir(), 'gensvc-cli-out-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const config = loadConfig({ LOG_LEVEL: 'silent', LOCAL_SUPPLIER_DELAY_MS: '1500', DATA_DIR: dataDir, PORT: String(port), PUBLIC_BASE_URL: baseUrl });
    app = await createApp(config, { clock });
    await app.listen(port, '127.0.0.1');
    const t = { app, config, dataDir, http: undefined as never, close: async () => undefined };
    account = await createAccount(t, { name: 'cli user', credit: '100.00' });
  }, 600_000);

  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('reads the catalogue without a key and the wallet with one', async () => {
    const models = await runCli(CLIENT_CLI, ['models'], { GENSVC_BASE_URL: baseUrl, GENSVC_API_KEY: '' });
    expect(models.code).toBe(0);
    expect((oneJson(models.stdout).data as { id: string }[]).map((m) => m.id)).toContain('image-studio-v2');
    expect((await ok('models', 'image-studio-v2')).input_schema.properties.size.enum).toContain('512x512');
    expect(await ok('wallet')).toEqual({ currency: 'CNY', balance: '100.000000', reserved: '0.000000', available: '100.000000' });
    const denied = await cli(['wallet'], { GENSVC_API_KEY: 'gsk_nope' });
    expect(denied.code).toBe(1);
    expect(denied.stdout).toBe(''); // errors go to stderr
    expect(errorJson(denied.stderr)).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String), request_id: expect.any(String) } });
    const usage = await cli(['frobnicate']);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(errorJson(usage.stderr).error).toMatchObject({ code: 'USAGE', message: "unknown command 'frobnicate'" });
  });

  it('suggests the closest command or flag, and has help for every command', async () => {
    const typo = await cli(['modles']);
    expect(typo.code).toBe(2);
    expect(errorJson(typo.stderr).error.message).toContain('(Did you mean models?)');
    const flag = await cli(['tasks', 'list', '--limt', '2']);
    expect(flag.code).toBe(2);
    expect(errorJson(flag.stderr).error.message).toContain('(Did you mean --limit?)');
    const help = await cli(['help']);
    expect(help.code).toBe(0);
    for (const command of ['models', 'quote', 'run', 'upload', 'assets', 'tasks', 'wallet', 'billing', 'voices', 'mcp']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const quoteHelp = await cli(['quote', '--help']);
    expect(quoteHelp.code).toBe(0);
    expect(quoteHelp.stdout).toMatch(/^Usage: gensvc quote \[options\]/);
    expect(quoteHelp.stdout).toContain('--param <name=value>');
    const helpOf = await cli(['help', 'tasks']);
    expect(helpOf.stdout).toMatch(/list \[options\]/);
    const missing = await cli(['quote', '--param', 'prompt=hi']);
    expect(missing.code).toBe(2);
    expect(errorJson(missing.stderr).error.message).toContain("required option '--model <id>' not specified");
    // what --q really searches
    expect((await cli(['tasks', 'list', '--help'])).stdout.replace(/\s+/g, ' ')).toContain('--q <text> part of the title or of the id, any case (for bills also the bill id)');
  });

  it('prints tables on a terminal and JSON with --json', async () => {
    // `script` gives the CLI a pseudo-terminal as stdout.
    const env = { GENSVC_BASE_URL: baseUrl, GENSVC_API_KEY: account.apiKey };
    const tty = await runCli('/usr/bin/script', ['-qec', `${process.execPath} ${CLIENT_CLI} models`, '/dev/null'], env, undefined, true);
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/^ID\s+NAME\s+MODALITY\s+CAPABILITIES\s+AVAILABLE\s+PRICE\s*$/m);
    // prices: the lowest, "from" when they differ by parameters
    expect(tty.stdout).toMatch(/^image-studio-v2\s+Image Studio v2\s+image\s+\["image\.generate"\]\s+true\s+from \d+\.\d{6} CNY\/image\s*$/m);
    expect(tty.stdout).toMatch(/^text-writer-lite\s+.*\s+true\s+\d+\.\d{6} CNY\/request\s*$/m);
    const forced = await runCli('/usr/bin/script', ['-qec', `${process.execPath} ${CLIENT_CLI} wallet --json`, '/dev/null'], env, undefined, true);
    expect(JSON.parse(forced.stdout.trim())).toMatchObject({ currency: 'CNY' });
    const ttyError = await runCli('/usr/bin/script', ['-qec', `${process.execPath} ${CLIENT_CLI} tasks get task_nope`, '/dev/null'], env, undefined, true);
    expect(ttyError.code).toBe(1);
    expect(ttyError.stdout).toMatch(/^error: NOT_FOUND: .+ \(request req_[0-9a-f]+\)/m);
  });

  it('quotes with --param and --input', async () => {
    const quote = await ok('quote', '--model', 'image-studio-v2', '--capability', 'image.generate', '--input', '{"prompt":"a fox"}', '--param', 'size=512x512', '--param', 'count=2');
    expect(Object.keys(quote).sort()).toEqual(
      ['currency', 'estimated_amount', 'expires_at', 'max_amount', 'model', 'price_version', 'pricing_mode', 'quantity', 'quote_id', 'resolved_model', 'unit', 'unit_price'].sort(),
    );
    expect(quote.quantity).toBe(2);
    const bad = await cli(['quote', '--model', 'image-studio-v2', '--capability', 'image.generate', '--param', 'prompt=x', '--param', 'size=3x3']);
    expect(bad.code).toBe(1);
    expect(errorJson(bad.stderr).error).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('uploads files with their real type, showing progress, and a re-run resumes the same upload', async () => {
    const expected: Record<string, string> = {
      'image.png': 'image/png',
      'image.jpg': 'image/jpeg',
      'image.webp': 'image/webp',
      'audio.wav': 'audio/wav',
      'audio.mp3': 'audio/mpeg',
      'video.mp4': 'video/mp4',
      'data.json': 'application/json',
      'text.txt': 'text/plain',
    };
    for (const [file, mime] of Object.entries(expected)) {
      const run = await cli(['upload', join(FIXTURES, file)]);
      expect(run.code).toBe(0);
      const up = oneJson(run.stdout);
      expect(up).toMatchObject({ status: 'completed', name: file, mime, checksum: sha256(join(FIXTURES, file)), asset_id: expect.stringMatching(/^ast_/) });
      expect(up).not.toHaveProperty('upload'); // the upload token is never printed
      expect(run.stderr).toMatch(/upload \[=+\] 100%/);
      const again = oneJson((await cli(['upload', join(FIXTURES, file)])).stdout);
      expect(again.upload_id).toBe(up.upload_id);
    }
  });

  it('resumes an interrupted upload by re-sending the whole file under the same key', async () => {
    const path = join(work, 'big.bin.txt');
    writeFileSync(path, 'gensvc resume test line\n'.repeat(100_000)); // 2.4 MB of text
    const facts = await inspectFile(path);
    // An earlier run prepared the upload and was cut off in the middle of the PUT.
    const prepare = await fetch(`${baseUrl}/v1/uploads/prepare`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${account.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: facts.name, mime: facts.mime, size: facts.size, checksum: facts.checksum, idempotency_key: await uploadKey(facts) }),
    });
    expect(prepare.status).toBe(200);
    const prepared = (await prepare.json()) as { upload_id: string; upload: { url: string; headers: Record<string, string> } };
    await new Promise<void>((resolve) => {
      const req = httpRequest(prepared.upload.url, { method: 'PUT', headers: { ...prepared.upload.headers, 'Content-Type': facts.mime, 'Content-Length': String(facts.size) } });
      req.on('error', () => resolve());
      req.write(readFileSync(path).subarray(0, 500_000), () => setTimeout(() => (req.destroy(), resolve()), 100));
    });
    const run = await cli(['upload', path]);
    expect(run.code).toBe(0);
    expect(oneJson(run.stdout)).toMatchObject({ upload_id: prepared.upload_id, status: 'completed', size: facts.size, checksum: facts.checksum });
  });

  it('starts over under a new key when the earlier upload expired', async () => {
    const path = join(work, 'expiring.json');
    writeFileSync(path, JSON.stringify({ hello: 'world', n: [1, 2, 3] }));
    const facts = await inspectFile(path);
    const first = await fetch(`${baseUrl}/v1/uploads/prepare`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${account.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: facts.name, mime: facts.mime, size: facts.size, checksum: facts.checksum, idempotency_key: await uploadKey(facts) }),
    });
    const expired = (await first.json()) as { upload_id: string };
    clock.offsetMs += 16 * 60_000;
    try {
      const run = await cli(['upload', path]);
      expect(run.code).toBe(0);
      const up = oneJson(run.stdout);
      expect(up).toMatchObject({ status: 'completed', mime: 'application/json' });
      expect(up.upload_id).not.toBe(expired.upload_id);
    } finally {
      clock.offsetMs -= 16 * 60_000;
    }
  });

  it('runs a task: quote, create, follow with a status display, download the outputs into a directory it creates', async () => {
    const out = join(work, 'run-out', 'new'); // does not exist yet
    const run = await cli(['run', '--model', 'image-studio-v2', '--param', 'prompt=a red fox', '--param', 'size=512x512', '--file', join(FIXTURES, 'image.png'), '--title', ' fox ', '--out', out]);
    expect(run.code).toBe(0);
    const { task, files } = oneJson(run.stdout) as { task: Record<string, any>; files: { asset_id: string; path: string; checksum: string; size: number }[] }; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(task).toMatchObject({ status: 'succeeded', title: 'fox', settlement_status: 'settled', output: { asset_ids: [expect.any(String)] } });
    expect(run.stderr).toMatch(/: queued/);
    expect(run.stderr).toMatch(/: running/);
    expect(run.stderr).toMatch(/: succeeded/);
    expect(files).toHaveLength(1);
    expect(readdirSync(out)).toEqual([files[0].path.split('/').pop()]);
    expect(sha256(files[0].path)).toBe(files[0].checksum);
    expect(files[0].path.endsWith('.png')).toBe(true);
    const asset = await ok('assets', 'get', files[0].asset_id);
    expect(asset).toMatchObject({ id: files[0].asset_id, checksum: files[0].checksum, size: files[0].size });
    expect((await ok('wallet')).balance).not.toBe('100.000000');
  });

  it('run again with the same --idempotency-key follows the task that key created (no second task, no second charge)', async () => {
    const out = join(work, 'resume-out');
    const args = ['run', '--model', 'text-writer-lite', '--param', 'prompt=once', '--idempotency-key', `cli-resume-${Date.now()}`, '--out', out];
    const first = await cli(args);
    expect(first.code).toBe(0);
    const one = oneJson(first.stdout) as { task: { id: string }; files: { path: string }[] };
    const wallet = await ok('wallet');
    const second = await cli(args);
    expect(second.code).toBe(0);
    const two = oneJson(second.stdout) as { task: { id: string; status: string }; files: { path: string }[] };
    expect(two.task).toMatchObject({ id: one.task.id, status: 'succeeded' });
    expect(second.stderr).toContain(`task ${one.task.id}: created earlier under Idempotency-Key`);
    expect(await ok('wallet')).toEqual(wallet);
    // the output already there is kept, not written again beside it
    expect(two.files.map((f) => f.path)).toEqual(one.files.map((f) => f.path));
    expect(readdirSync(out)).toEqual(['output.txt']);
  });

  it('run --max-amount refuses a dearer quote before anything is created', async () => {
    const before = await ok('tasks', 'list', '--limit', '100');
    const run = await cli(['run', '--model', 'image-studio-v2', '--param', 'prompt=x', '--param', 'count=4', '--max-amount', '0.01']);
    expect(run.code).toBe(1);
    expect(errorJson(run.stderr).error).toMatchObject({ code: 'QUOTE_ABOVE_LIMIT', message: expect.stringContaining('above the limit of 0.01 CNY') });
    expect((await ok('tasks', 'list', '--limit', '100')).data).toHaveLength(before.data.length);
    const bad = await cli(['run', '--model', 'text-writer-lite', '--param', 'prompt=x', '--max-amount', 'ten']);
    expect(bad.code).toBe(2);
  });

  it('run exits 0 after a paid success even when an output cannot be written, and says how to fetch it', async () => {
    const blocker = join(work, 'not-a-dir');
    writeFileSync(blocker, 'a file where the directory should be');
    const run = await cli(['run', '--model', 'text-writer-lite', '--param', 'prompt=paid', '--out', blocker]);
    expect(run.code).toBe(0);
    const result = oneJson(run.stdout) as { task: { status: string; output: { asset_ids: string[] } }; files: unknown[]; download_errors: { asset_id: string; error: { code: string } }[] };
    expect(result.task.status).toBe('succeeded');
    expect(result.files).toEqual([]);
    expect(result.download_errors.map((e) => e.asset_id)).toEqual(result.task.output.asset_ids);
    expect(run.stderr).toContain(`gensvc assets download ${result.task.output.asset_ids[0]}`);
    expect(readFileSync(blocker, 'utf8')).toBe('a file where the directory should be');
  });

  it('says which variable to set when no API key is given', async () => {
    const run = await cli(['wallet'], { GENSVC_API_KEY: '' });
    expect(run.code).toBe(1);
    expect(errorJson(run.stderr).error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringContaining('set GENSVC_API_KEY (or pass --api-key)') });
  });

  it('uploads a file again as a new asset after its asset was deleted', async () => {
    const first = await ok('upload', join(FIXTURES, 'data.json'));
    await ok('assets', 'delete', first.asset_id);
    const again = await ok('upload', join(FIXTURES, 'data.json'));
    expect(again.asset_id).not.toBe(first.asset_id);
    expect(await ok('assets', 'get', again.asset_id)).toMatchObject({ id: again.asset_id, checksum: first.checksum });
  });

  it('downloads and deletes assets', async () => {
    const up = await ok('upload', join(FIXTURES, 'audio.wav'));
    const listed = await ok('assets', 'list', '--q', 'audio.w', '--limit', '5');
    expect(listed).toMatchObject({ page: 1, limit: 5 });
    expect(listed.data.map((a: { id: string; source: string }) => [a.id, a.source])).toContainEqual([up.asset_id, 'upload']);
    const target = join(work, 'copy.wav');
    const d = await ok('assets', 'download', up.asset_id, '--out', target);
    expect(d).toEqual({ asset_id: up.asset_id, path: target, size: up.size, checksum: up.checksum });
    expect(sha256(target)).toBe(up.checksum);
    const again = await cli(['assets', 'download', up.asset_id, '--out', target]);
    expect(again.code).toBe(1); // never overwrites without --overwrite
    expect(errorJson(again.stderr).error.message).toMatch(/exists \(use --overwrite\)/);
    await ok('assets', 'delete', up.asset_id);
    const gone = await cli(['assets', 'get', up.asset_id]);
    expect(errorJson(gone.stderr).error).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists, reads and cancels tasks', async () => {
    const quote = await ok('quote', '--model', 'text-writer-lite', '--capability', 'text.generate', '--param', 'prompt=hello');
    const created = await fetch(`${baseUrl}/v1/tasks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${account.apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'cli-test-cancel-1' },
      body: JSON.stringify({ quote_id: quote.quote_id }),
    });
    const task = (await created.json()) as { id: string; status: string };
    expect(task.status).toBe('queued');
    const cancel = await ok('tasks', 'cancel', task.id);
    expect(cancel).toMatchObject({ task_id: task.id, cancellation: { status: expect.stringMatching(/^(confirmed|requested|checking)$/) } });
    expect((await ok('tasks', 'get', task.id)).id).toBe(task.id);
    const list = await ok('tasks', 'list', '--limit', '2', '--status', 'canceled');
    expect(list).toMatchObject({ page: 1, limit: 2 });
    if (cancel.cancellation.status === 'confirmed') expect(list.data.map((t: { id: string }) => t.id)).toContain(task.id);
    const bills = await ok('billing', '--limit', '1');
    expect(bills.data).toHaveLength(1);
  });
});
