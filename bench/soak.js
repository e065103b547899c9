#!/usr/bin/env node
/*
 * Crash soak of several processes on one data directory (CONTRACT §13):
 *
 *   npm run build && node bench/soak.js [--minutes 10] [--kill-every 25] [--clients 6]
 *     [--accounts 4] [--keep-dir DIR]
 *
 * Starts two `api` processes and one `worker` (the built service, PROCESS_ROLE) on one fresh
 * DATA_DIR and runs a mixed workload against both api processes: quotes and task creations
 * (a creation whose answer was lost is sent again, to either process, with the same
 * Idempotency-Key until one answers), cancellations, uploads (prepare, PUT, complete with
 * one idempotency key; a lost answer is retried the same way) and downloads of what was
 * uploaded, task lists. Every `kill-every` seconds (±50 %) a random one of the three gets
 * SIGKILL and is started again a moment later on the same port.
 *
 * Then it stops the killing, waits until every task is terminal and checks:
 *  - money: per account, balance = credit - Σ charged_amount of its tasks, reserved = 0,
 *    available = balance (from the API and from the events);
 *  - every acknowledged task (a 202 seen by a client) exists; each task's stream holds at
 *    most one terminal event and at most one settlement;
 *  - supplier jobs: each job's stream holds at most one dispatch (one submission);
 *  - every acknowledged upload's asset answers with exactly the bytes sent (SHA-256);
 *  - read models: tasks, bills and wallets read from a surviving api process equal those of
 *    a process started afterwards on a copy of the data directory after `admin replay`.
 * Prints a table and one JSON line; exit code 1 when any check fails.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { createHash, randomBytes, randomUUID } = require('node:crypto');
const { cpSync, existsSync, mkdtempSync, rmSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const API = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
const ADMIN = join(ROOT, 'dist', 'apps', 'admin', 'src', 'main.js');

function args() {
  const out = { minutes: 10, 'kill-every': 25, clients: 6, accounts: 4, 'keep-dir': '' };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, '');
    if (!(k in out)) throw new Error(`unknown option --${k}`);
    out[k] = typeof out[k] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
  }
  return out;
}
const opts = args();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${a.join(' ')}\n`);
const MICRO = 1_000_000n;
const micro = (s) => BigInt(s.replace('.', ''));
const fmt = (m) => `${m / MICRO}.${String(m % MICRO).padStart(6, '0')}`;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One supervised process of the service on a fixed port. */
class Proc {
  static all = [];
  constructor(name, role, dir, port) {
    Object.assign(this, { name, role, dir, port, child: null, kills: 0, starts: 0 });
    Proc.all.push(this);
    this.url = `http://127.0.0.1:${port}`;
  }
  async start() {
    this.starts++;
    this.child = spawn(process.execPath, [API], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: this.dir, PORT: String(this.port), HOST: '127.0.0.1', PROCESS_ROLE: this.role, LOG_LEVEL: 'error', LOCAL_SUPPLIER_DELAY_MS: '300', RATE_LIMITS: 'off', SUPPLIER_JOB_LEASE_MS: '3000' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const until = Date.now() + 300_000;
    for (;;) {
      try {
        if ((await fetch(`${this.url}/health/ready`)).ok) return;
      } catch {
        /* starting */
      }
      if (this.child.exitCode !== null) throw new Error(`${this.name} exited at start`);
      if (Date.now() > until) throw new Error(`${this.name} did not become ready`);
      await sleep(100);
    }
  }
  kill() {
    this.kills++;
    const c = this.child;
    return new Promise((r) => {
      if (c.exitCode !== null || c.signalCode !== null) return r();
      c.once('exit', () => r());
      c.kill('SIGKILL');
    });
  }
  stop() {
    const c = this.child;
    return new Promise((r) => {
      if (!c || c.exitCode !== null || c.signalCode !== null) return r();
      c.once('exit', () => r());
      c.kill('SIGTERM');
    });
  }
}

function admin(dir, argv) {
  const r = spawnSync(process.execPath, [ADMIN, ...argv], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'error' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`admin ${argv.join(' ')}: ${r.stdout} ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

async function call(base, key, method, path, body, headers = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined || Buffer.isBuffer(body) ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const buf = Buffer.from(await res.arrayBuffer());
  let json;
  try {
    json = JSON.parse(buf.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, bytes: buf };
}

async function main() {
  if (!existsSync(API) || !existsSync(ADMIN)) throw new Error('build first: npm run build');
  const dir = opts['keep-dir'] || mkdtempSync(join(tmpdir(), 'gensvc-soak-'));
  const CREDIT = '1000.000000';
  const accounts = [];
  for (let i = 0; i < opts.accounts; i++) {
    const a = admin(dir, ['account', 'create', '--name', `soak-${i}`, '--credit', CREDIT]);
    accounts.push({ id: a.account_id, key: a.api_key, tasks: new Set(), assets: new Map() });
  }
  const procs = [new Proc('api-a', 'api', dir, await freePort()), new Proc('api-b', 'api', dir, await freePort()), new Proc('worker', 'worker', dir, await freePort())];
  for (const p of procs) {
    await p.start();
    p.up = true;
  }
  const apis = procs.filter((p) => p.role === 'api');
  const stats = { quotes: 0, creations: 0, creation_retries: 0, cancels: 0, uploads: 0, upload_retries: 0, downloads: 0, lists: 0, transport_errors: 0, unexpected: [] };
  const endAt = Date.now() + opts.minutes * 60_000;
  let running = true;

  /** Sends `fn(base)` to a random api process until it answers (a transport error moves on). */
  async function anyApi(fn, retriesKey) {
    for (let attempt = 0; ; attempt++) {
      const p = apis[Math.floor(Math.random() * apis.length)];
      try {
        return await fn(p.url);
      } catch {
        stats.transport_errors++;
        if (attempt > 0 && retriesKey) stats[retriesKey]++;
        await sleep(100 + Math.random() * 200);
      }
    }
  }
  const expect = (what, res, statuses) => {
    if (!statuses.includes(res.status)) stats.unexpected.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    return statuses.includes(res.status);
  };

  const MODELS = [
    { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'a soak test' } },
  ];
  async function createOne(acc) {
    const q = await anyApi((b) => call(b, acc.key, 'POST', '/v1/quotes', MODELS[0]));
    stats.quotes++;
    if (!expect('quote', q, [200])) return;
    const idem = randomUUID();
    const t = await anyApi((b) => call(b, acc.key, 'POST', '/v1/tasks', { quote_id: q.body.quote_id }, { 'idempotency-key': idem }), 'creation_retries');
    if (t.status === 402) return; // out of money: fine
    if (!expect('create', t, [202])) return;
    stats.creations++;
    acc.tasks.add(t.body.id);
  }
  async function cancelOne(acc) {
    const ids = [...acc.tasks];
    if (!ids.length) return;
    const id = ids[Math.floor(Math.random() * ids.length)];
    const r = await anyApi((b) => call(b, acc.key, 'POST', `/v1/tasks/${id}/cancel`, {}));
    stats.cancels++;
    expect('cancel', r, [200, 202]);
  }
  async function uploadOne(acc) {
    const bytes = Buffer.from(`soak ${randomBytes(8).toString('hex')}\n`.repeat(1 + Math.floor(Math.random() * 2000)));
    const checksum = createHash('sha256').update(bytes).digest('hex');
    const idem = randomUUID();
    const meta = { name: 'soak.txt', mime: 'text/plain', size: bytes.length, checksum, idempotency_key: idem };
    for (let round = 0; round < 20; round++) {
      const p = await anyApi((b) => call(b, acc.key, 'POST', '/v1/uploads/prepare', meta), 'upload_retries');
      if (p.status === 429) {
        await sleep(500);
        continue;
      }
      if (!expect('prepare', p, [200])) return;
      if (p.body.status === 'completed' && p.body.asset_id) {
        acc.assets.set(p.body.asset_id, checksum);
        stats.uploads++;
        return;
      }
      if (p.body.status === 'prepared' || p.body.status === 'uploading') {
        const put = await anyApi((b) => call(b, acc.key, 'PUT', `/v1/uploads/${p.body.upload_id}/content`, bytes, p.body.upload.headers), 'upload_retries');
        if (put.status === 429 || put.status === 409) {
          await sleep(300);
          continue;
        }
        if (!expect('put', put, [200])) return;
      }
      const c = await anyApi((b) => call(b, acc.key, 'POST', `/v1/uploads/${p.body.upload_id}/complete`, {}), 'upload_retries');
      if (c.status === 409) continue;
      if (!expect('complete', c, [200])) return;
      acc.assets.set(c.body.asset_id, checksum);
      stats.uploads++;
      return;
    }
  }
  async function downloadOne(acc) {
    const ids = [...acc.assets.keys()];
    if (!ids.length) return;
    const id = ids[Math.floor(Math.random() * ids.length)];
    const a = await anyApi((b) => call(b, acc.key, 'GET', `/v1/assets/${id}`));
    if (!expect('asset', a, [200])) return;
    const path = new URL(a.body.download_url);
    const d = await anyApi((b) => call(b, acc.key, 'GET', path.pathname + path.search));
    stats.downloads++;
    if (expect('download', d, [200]) && createHash('sha256').update(d.bytes).digest('hex') !== acc.assets.get(id)) stats.unexpected.push(`download ${id}: bytes differ`);
  }
  async function listSome(acc) {
    const r = await anyApi((b) => call(b, acc.key, 'GET', '/v1/tasks?limit=20'));
    stats.lists++;
    expect('list', r, [200]);
  }

  async function client(n) {
    while (running && Date.now() < endAt) {
      const acc = accounts[(n + Math.floor(Math.random() * accounts.length)) % accounts.length];
      const r = Math.random();
      try {
        if (r < 0.45) await createOne(acc);
        else if (r < 0.55) await cancelOne(acc);
        else if (r < 0.7) await uploadOne(acc);
        else if (r < 0.85) await downloadOne(acc);
        else await listSome(acc);
      } catch (err) {
        stats.unexpected.push(`client: ${err.message}`);
      }
    }
  }

  /** Kills a random running process every `kill-every` seconds (±50 %); it restarts a moment later, in the background. */
  async function killer() {
    const restarts = [];
    while (Date.now() < endAt - 5_000) {
      await sleep(opts['kill-every'] * 1000 * (0.5 + Math.random()));
      if (Date.now() >= endAt - 5_000) break;
      const up = procs.filter((p) => p.up);
      if (!up.length) continue;
      const p = up[Math.floor(Math.random() * up.length)];
      log(`SIGKILL ${p.name}`);
      p.up = false;
      await p.kill();
      restarts.push(
        (async () => {
          await sleep(500 + Math.random() * 1500);
          for (let attempt = 1; ; attempt++) {
            try {
              await p.start();
              break;
            } catch (err) {
              log(`${p.name} failed to start (${err.message}); again`);
              await p.kill();
              if (attempt >= 3) throw err;
            }
          }
          p.up = true;
        })(),
      );
    }
    await Promise.all(restarts);
  }

  log(`soak: ${opts.minutes} min, ${opts.clients} clients, ${opts.accounts} accounts, DATA_DIR ${dir}`);
  await Promise.all([killer(), ...Array.from({ length: opts.clients }, (_, i) => client(i))]);
  running = false;
  log('workload done; waiting for every task to end');

  // Every task terminal.
  const api = apis[0];
  const terminal = new Set(['succeeded', 'failed', 'canceled']);
  const waitUntil = Date.now() + 180_000;
  for (;;) {
    let open = 0;
    for (const acc of accounts) {
      for (const id of acc.tasks) {
        const t = await call(api.url, acc.key, 'GET', `/v1/tasks/${id}`);
        if (!terminal.has(t.body?.status) || t.body?.settlement_status === 'reserved') open++;
      }
    }
    if (!open) break;
    if (Date.now() > waitUntil) {
      stats.unexpected.push(`${open} task(s) not settled 3 minutes after the workload`);
      break;
    }
    await sleep(1000);
  }

  const checks = [];
  const check = (name, ok, detail = '') => checks.push({ name, ok, detail });

  // Read models: everything the API shows, from a surviving process...
  async function snapshot(base) {
    const out = {};
    for (const acc of accounts) {
      const all = async (path) => {
        const items = [];
        for (let page = 1; ; page++) {
          const r = await call(base, acc.key, 'GET', `${path}?limit=100&page=${page}`);
          items.push(...r.body.data);
          if (!r.body.has_more) return items;
        }
      };
      out[acc.id] = { wallet: (await call(base, acc.key, 'GET', '/v1/wallet')).body, tasks: await all('/v1/tasks'), bills: await all('/v1/billing') };
    }
    return out;
  }
  await sleep(1500);
  const live = await snapshot(api.url);

  // Money, from the API.
  let moneyOk = true;
  const moneyRows = [];
  for (const acc of accounts) {
    const s = live[acc.id];
    const charged = s.tasks.reduce((sum, t) => sum + (t.charged_amount ? micro(t.charged_amount) : 0n), 0n);
    const expectBalance = micro(CREDIT) - charged;
    const w = s.wallet;
    const ok = micro(w.balance) === expectBalance && micro(w.reserved) === 0n && micro(w.available) === expectBalance;
    const known = [...acc.tasks].every((id) => s.tasks.some((t) => t.id === id));
    if (!ok || !known) moneyOk = false;
    moneyRows.push(`${acc.id}: balance ${w.balance} (expected ${fmt(expectBalance)}), reserved ${w.reserved}, tasks ${s.tasks.length} (acknowledged ${acc.tasks.size}${known ? '' : ', SOME MISSING'})`);
  }
  check('money per account (balance = credit - charged, nothing reserved), every acknowledged task exists', moneyOk, moneyRows.join('; '));

  // The event log.
  for (const p of procs) await p.stop();
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(join(dir, 'events.db'), { readOnly: true });
  const perStream = db
    .prepare(
      `SELECT stream,
              SUM(type IN ('TaskSucceeded','TaskFailed','TaskCanceled')) AS terminal,
              SUM(type = 'TaskSettled') AS settled,
              SUM(type = 'SupplierJobDispatched') AS dispatched
         FROM events WHERE stream LIKE 'task-%' OR stream LIKE 'supplierjob-%' GROUP BY stream`,
    )
    .all();
  const twiceTerminal = perStream.filter((r) => r.terminal > 1 || r.settled > 1);
  const twiceDispatched = perStream.filter((r) => r.dispatched > 1);
  const events = db.prepare('SELECT COUNT(*) AS n FROM events').get().n;
  db.close();
  check('each task terminal once and settled once (event log)', twiceTerminal.length === 0, `${perStream.length} streams; ${twiceTerminal.length} with more than one terminal or settlement event`);
  check('each supplier job dispatched (submitted) once (event log)', twiceDispatched.length === 0, `${twiceDispatched.length} with more than one dispatch`);

  // Bytes of every acknowledged upload, and the read models after a fresh replay (on a copy).
  const copy = mkdtempSync(join(tmpdir(), 'gensvc-soak-replay-'));
  cpSync(dir, copy, { recursive: true });
  admin(copy, ['replay']);
  const fresh = new Proc('replayed', 'all', copy, await freePort());
  await fresh.start();
  let bytesOk = 0;
  const bytesBad = [];
  for (const acc of accounts) {
    for (const [id, sum] of acc.assets) {
      const a = await call(fresh.url, acc.key, 'GET', `/v1/assets/${id}`);
      if (a.status !== 200) {
        bytesBad.push(`${id}: ${a.status}`);
        continue;
      }
      const u = new URL(a.body.download_url);
      const d = await call(fresh.url, acc.key, 'GET', u.pathname + u.search);
      if (d.status === 200 && createHash('sha256').update(d.bytes).digest('hex') === sum) bytesOk++;
      else bytesBad.push(`${id}: ${d.status}`);
    }
  }
  check("every acknowledged upload's bytes", bytesBad.length === 0, `${bytesOk} intact, ${bytesBad.length} not: ${bytesBad.slice(0, 5).join(', ')}`);
  const replayed = await snapshot(fresh.url);
  await fresh.stop();
  const strip = (s) => JSON.stringify(s, (k, v) => (k === 'url' || k === 'download_url' || k === 'links_expire_at' ? undefined : v));
  const diffs = accounts.filter((acc) => strip(live[acc.id]) !== strip(replayed[acc.id])).map((a) => a.id);
  check('read models equal a fresh replay (tasks, bills, wallets)', diffs.length === 0, diffs.length ? `differ for ${diffs.join(', ')}` : `${accounts.length} accounts`);
  check('no unexpected answer', stats.unexpected.length === 0, stats.unexpected.slice(0, 5).join(' | '));

  const kills = procs.reduce((n, p) => n + p.kills, 0);
  const summary = {
    minutes: opts.minutes,
    kills,
    kills_by_process: Object.fromEntries(procs.map((p) => [p.name, p.kills])),
    events,
    ...Object.fromEntries(Object.entries(stats).filter(([k]) => k !== 'unexpected')),
    unexpected: stats.unexpected.length,
    violations: checks.filter((c) => !c.ok).length,
  };
  const rows = checks.map((c) => `| ${c.name} | ${c.ok ? 'ok' : 'VIOLATED'} | ${c.detail.replace(/\|/g, '/')} |`);
  process.stdout.write(['| check | result | detail |', '| --- | --- | --- |', ...rows, '', JSON.stringify(summary), ''].join('\n'));
  if (!opts['keep-dir']) rmSync(dir, { recursive: true, force: true });
  rmSync(copy, { recursive: true, force: true });
  process.exit(summary.violations ? 1 : 0);
}

// Never leave a service process behind, whatever ends this one.
process.on('exit', () => {
  for (const p of Proc.all) if (p.child && p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
});

main().catch((err) => {
  process.stderr.write(`soak failed: ${err.stack}\n`);
  process.exit(2);
});
