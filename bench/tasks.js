#!/usr/bin/env node
/*
 * Benchmark of the money path against the built server on the embedded stores:
 *
 *   npm run build && node bench/tasks.js [--seconds 10] [--concurrency 32] [--rate 500] [--list-tasks 100000]
 *
 * 1. throughput: `concurrency` closed-loop clients each quote and create tasks for `seconds`
 *    (task creations per second, p50/p99 of POST /v1/tasks and of quote + create);
 * 2. fixed rate: POST /v1/tasks at `rate` per second (quotes issued beforehand), open loop,
 *    p50/p99 latency and the rate actually reached;
 * 3. lists: an account with `list-tasks` tasks (events written straight into the event store
 *    before the server starts, then projected at start-up), GET /v1/tasks with each filter,
 *    p50/p99 over 200 requests per query.
 *
 * Prints one JSON object. Targets (issue #4): ≥ 1,000 creations/s sustained, p99 ≤ 25 ms at
 * 500/s, GET /v1/tasks p99 ≤ 30 ms over 100,000 tasks. Results go to docs/benchmarks.md.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, rmSync } = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
const { randomUUID } = require('node:crypto');

const root = join(__dirname, '..');
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '32' },
    rate: { type: 'string', default: '500' },
    'list-tasks': { type: 'string', default: '100000' },
    skip: { type: 'string', default: '' },
  },
});
const SECONDS = Number(args.seconds);
const CONCURRENCY = Number(args.concurrency);
const RATE = Number(args.rate);
const LIST_TASKS = Number(args['list-tasks']);
const skip = new Set(args.skip.split(',').filter(Boolean));
const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function request(port, method, path, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      { host: '127.0.0.1', port, method, path, agent, headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json = text;
          try {
            json = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode, body: json });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)].toFixed(2);
};
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

async function startServer(dataDir, extraEnv = {}) {
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', LOCAL_SUPPLIER_DELAY_MS: '600000', ...extraEnv };
  const server = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS ? process.env.BENCH_SERVER_NODE_ARGS.split(' ') : []), join(root, 'dist/apps/api/src/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const t0 = Date.now();
  for (let i = 0; ; i++) {
    const r = await request(port, 'GET', '/health/ready').catch(() => null);
    if (r && r.status === 200) break;
    if (Date.now() - t0 > 600_000) throw new Error('server did not start');
    await sleep(100);
  }
  return { port, env, server, startSeconds: (Date.now() - t0) / 1000 };
}

async function stopServer(s) {
  s.server.kill('SIGTERM');
  await new Promise((r) => s.server.once('exit', r));
}

function admin(env, ...argv) {
  const r = spawnSync(process.execPath, [join(root, 'dist/apps/admin/src/main.js'), ...argv], { env, encoding: 'utf8' });
  return JSON.parse(r.stdout);
}

async function account(s, credit) {
  const created = admin(s.env, 'account', 'create', '--name', 'bench', '--credit', credit);
  const auth = { Authorization: `Bearer ${created.api_key}` };
  for (let i = 0; i < 50; i++) {
    if ((await request(s.port, 'GET', '/v1/wallet', auth)).status === 200) break;
    await sleep(100);
  }
  return { accountId: created.account_id, auth };
}

const QUOTE = { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'benchmark' } };

async function quote(s, auth) {
  const r = await request(s.port, 'POST', '/v1/quotes', auth, QUOTE);
  if (r.status !== 200) throw new Error(`quote: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.quote_id;
}

async function create(s, auth, quoteId) {
  const r = await request(s.port, 'POST', '/v1/tasks', { ...auth, 'Idempotency-Key': `bench-${randomUUID()}` }, { quote_id: quoteId });
  if (r.status !== 202) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function throughput(s) {
  const { auth } = await account(s, '1000000');
  for (let i = 0; i < 20; i++) await create(s, auth, await quote(s, auth)); // warm-up
  const createMs = [];
  const pairMs = [];
  const until = Date.now() + SECONDS * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        const a = process.hrtime.bigint();
        const q = await quote(s, auth);
        const b = process.hrtime.bigint();
        await create(s, auth, q);
        createMs.push(ms(b));
        pairMs.push(ms(a));
      }
    }),
  );
  const seconds = ms(t0) / 1000;
  return {
    concurrency: CONCURRENCY,
    seconds: +seconds.toFixed(2),
    tasks: createMs.length,
    creations_per_s: +(createMs.length / seconds).toFixed(1),
    create_p50_ms: pct(createMs, 50),
    create_p99_ms: pct(createMs, 99),
    quote_and_create_p50_ms: pct(pairMs, 50),
    quote_and_create_p99_ms: pct(pairMs, 99),
  };
}

async function fixedRate(s) {
  const { auth } = await account(s, '1000000');
  const n = RATE * SECONDS;
  log(`issuing ${n} quotes for the fixed-rate run…`);
  const quotes = [];
  for (let i = 0; i < n; i += 64) quotes.push(...(await Promise.all(Array.from({ length: Math.min(64, n - i) }, () => quote(s, auth)))));
  const lat = [];
  let errors = 0;
  const t0 = process.hrtime.bigint();
  const pending = [];
  for (let i = 0; i < n; i++) {
    const due = (i * 1000) / RATE;
    const wait = due - ms(t0);
    if (wait > 1) await sleep(wait);
    const a = process.hrtime.bigint();
    pending.push(
      create(s, auth, quotes[i]).then(
        () => lat.push(ms(a)),
        () => errors++,
      ),
    );
  }
  await Promise.all(pending);
  const seconds = ms(t0) / 1000;
  return { target_per_s: RATE, reached_per_s: +(n / seconds).toFixed(1), requests: n, errors, p50_ms: pct(lat, 50), p99_ms: pct(lat, 99) };
}

/** Writes `count` settled or reserved tasks of one account straight into the event store. */
async function seedTasks(dataDir, accountId, count) {
  const shared = require(join(root, 'dist/libs/shared/src'));
  const store = new shared.SqliteEventStore(join(dataDir, 'events.db'));
  store.connection.pragma('synchronous = OFF'); // seeding only: the server writes with its own settings
  const base = Date.parse('2026-01-01T00:00:00Z');
  const modalities = [
    ['text-writer-lite', 'text'],
    ['image-studio-v2', 'image'],
    ['speech-tts-std', 'audio'],
  ];
  for (let i = 0; i < count; i++) {
    const id = shared.newId('task');
    const [model, modality] = modalities[i % 3];
    const at = new Date(base + i * 1000).toISOString();
    const events = [
      {
        type: 'TaskCreated',
        data: {
          task_id: id,
          bill_id: `bill_${id.slice(5)}`,
          account_id: accountId,
          connection_id: i % 2 ? 'key_a' : 'key_b',
          quote_id: `qt_seed${i}`,
          model,
          resolved_model: model,
          capability: 'x',
          modality,
          title: `Seeded task number ${i}`,
          price_version: 'seed',
          currency: 'CNY',
          estimated_amount: '0.020000',
          max_amount: '0.020000',
          params: {},
          asset_ids: [],
          voice_id: null,
          created_at: at,
        },
      },
    ];
    if (i % 4 !== 0) {
      const ok = i % 4 !== 1;
      const ref = { task_id: id, account_id: accountId, at };
      events.push(ok ? { type: 'TaskSucceeded', data: { ...ref, output: { asset_ids: [] } } } : { type: 'TaskFailed', data: { ...ref, error: { code: 'X', message: 'x' } } });
      events.push({
        type: 'TaskSettled',
        data: { ...ref, settlement_status: ok ? 'settled' : 'released', charged_amount: ok ? '0.020000' : '0.000000', released_amount: ok ? '0.000000' : '0.020000' },
      });
    }
    await store.appendToStream(`task-${id}`, events, { expectedRevision: 'no_stream' });
    if (i % 20000 === 0) log(`seeded ${i} tasks…`);
  }
  // The seeded tasks are history: their reactions (submission, settlement) count as done, so
  // the reactors start after them (the projections still build their read models from them).
  const head = await store.headPosition();
  store.connection.prepare("UPDATE checkpoints SET position = ? WHERE name LIKE 'reactor:%'").run(head);
  await store.close();
}

async function lists(dataDir) {
  let s = await startServer(dataDir);
  const { accountId } = await account(s, '1');
  await stopServer(s);
  log(`seeding ${LIST_TASKS} tasks…`);
  const created = admin({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, 'api-key', 'create', '--account', accountId);
  await seedTasks(dataDir, accountId, LIST_TASKS);
  s = await startServer(dataDir);
  const auth = { Authorization: `Bearer ${created.api_key}` };
  const queries = {
    all: '',
    page_50: '?page=50&limit=100',
    q_title: '?q=number%20777',
    status: '?status=failed',
    modality: '?modality=image',
    settlement: '?settlement_status=settled',
    connection: '?connection_id=key_a',
    created_range: '?created_from=2026-01-01T10:00:00Z&created_before=2026-01-01T12:00:00Z',
    amount: '?min_amount=0.01&max_amount=1',
    combined: '?status=succeeded&modality=text&min_amount=0.02&limit=50',
  };
  const out = { tasks: LIST_TASKS, server_start_s: +s.startSeconds.toFixed(1) };
  for (const [name, q] of Object.entries(queries)) {
    const lat = [];
    for (let i = 0; i < 200; i++) {
      const t0 = process.hrtime.bigint();
      const r = await request(s.port, 'GET', `/v1/tasks${q}`, auth);
      lat.push(ms(t0));
      if (r.status !== 200) throw new Error(`list ${name}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    out[name] = { p50_ms: pct(lat, 50), p99_ms: pct(lat, 99) };
  }
  await stopServer(s);
  return out;
}

async function main() {
  for (const f of ['dist/apps/api/src/main.js', 'dist/apps/admin/src/main.js']) if (!existsSync(join(root, f))) throw new Error('build first: npm run build');
  const work = mkdtempSync(join(tmpdir(), 'gensvc-bench-tasks-'));
  const out = { machine: { cpus: require('node:os').cpus().length, node: process.version } };
  try {
    if (!skip.has('throughput') || !skip.has('rate')) {
      const s = await startServer(join(work, 'run'));
      try {
        if (!skip.has('throughput')) {
          log('throughput…');
          out.throughput = await throughput(s);
        }
        if (!skip.has('rate')) {
          log(`fixed rate ${RATE}/s…`);
          out.fixed_rate = await fixedRate(s);
        }
      } finally {
        await stopServer(s);
      }
    }
    if (!skip.has('lists')) {
      log('lists…');
      out.lists = await lists(join(work, 'lists'));
    }
    out.targets = { creations_per_s: '>= 1000', fixed_rate_p99_ms: '<= 25 at 500/s', list_p99_ms: '<= 30 over 100000 tasks' };
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    agent.destroy();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ error: String(err && err.message ? err.message : err) }) + '\n');
  process.exit(1);
});
