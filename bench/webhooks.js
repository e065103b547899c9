#!/usr/bin/env node
/*
 * Benchmark of webhook deliveries against the built server on the embedded stores:
 *
 *   npm run build && node bench/webhooks.js [--tasks 300] [--endpoints 8] [--concurrency 16]
 *     [--seconds 8] [--cost-endpoints 4]
 *
 * A receiver on loopback answers every message 204 at once (WEBHOOKS_ALLOW_LOCAL=1).
 * 1. delivery throughput: `endpoints` endpoints of one account subscribe to every event type;
 *    `tasks` tasks are created (`concurrency` at a time, quotes issued beforehand) and run on the
 *    built-in supplier with no delay, so each yields 3 messages per endpoint (task.created,
 *    task.running, task.succeeded). Reports messages delivered per second from the first to the
 *    last message received (`delivered_per_s`), the receiver-side count against the expected
 *    one, delivery latency (event stored → message received) p50/p99, and whether every
 *    delivery list says `delivered` with one attempt.
 * 2. added cost per task creation: POST /v1/tasks closed loop over `concurrency` connections for
 *    `seconds` (or until the quotes issued beforehand, 1,500 per second of the run, are used
 *    up; creations/s over the time it ran), on a fresh server each, without endpoints and with `cost-endpoints` endpoints
 *    subscribed to every type (tasks stay queued: LOCAL_SUPPLIER_DELAY_MS is long, so only
 *    task.created messages flow): creations/s and p50/p99 of each, and the difference.
 *
 * Prints one JSON object; `ok` false (exit 1) when a message is missing or a creation failed.
 * Results go to docs/benchmarks.md.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
const { randomUUID } = require('node:crypto');
// One request over bench/tasks.js's keep-alive agent, and its percentile helper.
const { request: send, pct } = require('./tasks');

const root = join(__dirname, '..');
const { values: args } = parseArgs({
  options: {
    tasks: { type: 'string', default: '300' },
    endpoints: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '8' },
    'cost-endpoints': { type: 'string', default: '4' },
  },
});
const TASKS = Number(args.tasks);
const ENDPOINTS = Number(args.endpoints);
const CONCURRENCY = Number(args.concurrency);
const SECONDS = Number(args.seconds);
const COST_ENDPOINTS = Number(args['cost-endpoints']);
const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const problems = [];

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One request; a keep-alive socket the server closed meanwhile is retried once on a new one (same headers, so the same Idempotency-Key). */
async function request(port, method, path, headers = {}, body) {
  try {
    return await send(port, method, path, headers, body);
  } catch (err) {
    if (err.code !== 'ECONNRESET' && err.message !== 'socket hang up') throw err;
    return send(port, method, path, headers, body);
  }
}

async function startServer(dataDir, extraEnv) {
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', WEBHOOKS_ALLOW_LOCAL: '1', RATE_LIMITS: 'off', ...extraEnv };
  const server = spawn(process.execPath, [join(root, 'dist/apps/api/src/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const t0 = Date.now();
  for (;;) {
    const r = await request(port, 'GET', '/health/ready').catch(() => null);
    if (r && r.status === 200) break;
    if (Date.now() - t0 > 600_000) throw new Error('server did not start');
    await sleep(100);
  }
  return { port, env, server };
}

async function stopServer(s) {
  s.server.kill('SIGTERM');
  await new Promise((r) => s.server.once('exit', r));
}

async function account(s) {
  const r = spawnSync(process.execPath, [join(root, 'dist/apps/admin/src/main.js'), 'account', 'create', '--name', 'bench', '--credit', '100000'], { env: s.env, encoding: 'utf8' });
  const created = JSON.parse(r.stdout);
  const auth = { Authorization: `Bearer ${created.api_key}` };
  for (let i = 0; i < 100; i++) {
    if ((await request(s.port, 'GET', '/v1/wallet', auth)).status === 200) break;
    await sleep(100);
  }
  return auth;
}

async function quotes(s, auth, n) {
  const ids = [];
  await pool(n, 32, async () => {
    const r = await request(s.port, 'POST', '/v1/quotes', auth, { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'benchmark' } });
    if (r.status !== 200) throw new Error(`quote: ${r.status} ${JSON.stringify(r.body)}`);
    ids.push(r.body.quote_id);
  });
  return ids;
}

/** Runs `fn` `n` times, `width` at a time. */
async function pool(n, width, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        next++;
        await fn();
      }
    }),
  );
}

function receiver() {
  const received = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ at: Date.now(), id: req.headers['webhook-id'], body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = 204;
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, received, url: `http://127.0.0.1:${server.address().port}` })));
}

async function endpoints(s, auth, url, n) {
  const ids = [];
  for (let i = 0; i < n; i++) {
    const r = await request(s.port, 'POST', '/v1/webhook-endpoints', auth, { url: `${url}/e${i}`, events: ['*'] });
    if (r.status !== 201) throw new Error(`endpoint: ${r.status} ${JSON.stringify(r.body)}`);
    ids.push(r.body.id);
  }
  return ids;
}

async function throughput() {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-bench-webhooks-'));
  const s = await startServer(dir, { LOCAL_SUPPLIER_DELAY_MS: '0' });
  const rx = await receiver();
  try {
    const auth = await account(s);
    const eps = await endpoints(s, auth, rx.url, ENDPOINTS);
    const ids = await quotes(s, auth, TASKS);
    const expected = TASKS * 3 * ENDPOINTS;
    log(`throughput: ${TASKS} tasks × 3 messages × ${ENDPOINTS} endpoints = ${expected} messages`);
    const t0 = Date.now();
    let created = 0;
    await pool(TASKS, CONCURRENCY, async () => {
      const r = await request(s.port, 'POST', '/v1/tasks', { ...auth, 'Idempotency-Key': `bench-${randomUUID()}` }, { quote_id: ids.pop() });
      if (r.status === 202) created++;
      else problems.push(`task creation answered ${r.status}`);
    });
    const createdSeconds = (Date.now() - t0) / 1000;
    const deadline = Date.now() + 600_000;
    while (rx.received.length < expected && Date.now() < deadline) await sleep(50);
    const first = rx.received[0]?.at ?? t0;
    const last = rx.received[rx.received.length - 1]?.at ?? t0;
    const latencies = rx.received.map((m) => m.at - Date.parse(JSON.parse(m.body).timestamp));
    const unique = new Set(rx.received.map((m) => m.id + ' ' + m.body)).size;
    if (rx.received.length < expected) problems.push(`${expected - rx.received.length} messages missing`);
    let allDelivered = true;
    for (const e of eps) {
      for (let page = 1; ; page++) {
        const r = await request(s.port, 'GET', `/v1/webhook-endpoints/${e}/deliveries?limit=100&page=${page}`, auth);
        for (const d of r.body.data) if (d.status !== 'delivered' || d.attempts.length !== 1) allDelivered = false;
        if (!r.body.has_more) break;
      }
    }
    if (!allDelivered) problems.push('a delivery list shows a delivery that is not delivered in one attempt');
    return {
      tasks_created: created,
      creation_seconds: +createdSeconds.toFixed(2),
      messages_expected: expected,
      messages_received: rx.received.length,
      distinct_messages: unique,
      delivered_per_s: +(rx.received.length / Math.max(0.001, (last - first) / 1000)).toFixed(1),
      all_done_after_s: +((last - t0) / 1000).toFixed(2),
      latency_p50_ms: pct(latencies, 50),
      latency_p99_ms: pct(latencies, 99),
      every_list_delivered_once: allDelivered,
    };
  } finally {
    await stopServer(s);
    rx.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function creationRun(withEndpoints) {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-bench-webhooks-cost-'));
  const s = await startServer(dir, { LOCAL_SUPPLIER_DELAY_MS: '600000' });
  const rx = await receiver();
  try {
    const auth = await account(s);
    if (withEndpoints) await endpoints(s, auth, rx.url, withEndpoints);
    // Quotes are issued one by one beforehand; the run stops after `seconds` or when they are used up.
    const ids = await quotes(s, auth, Math.max(500, Math.round(SECONDS * 1500)));
    const latencies = [];
    let failed = 0;
    const started = Date.now();
    const until = started + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < until && ids.length) {
          const t = process.hrtime.bigint();
          const r = await request(s.port, 'POST', '/v1/tasks', { ...auth, 'Idempotency-Key': `bench-${randomUUID()}` }, { quote_id: ids.pop() });
          latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
          if (r.status !== 202) failed++;
        }
      }),
    );
    const elapsed = (Date.now() - started) / 1000;
    if (failed) problems.push(`${failed} creations failed`);
    const expected = withEndpoints * latencies.length;
    const deadline = Date.now() + 120_000;
    while (rx.received.length < expected && Date.now() < deadline) await sleep(50);
    if (rx.received.length < expected) problems.push(`cost run: ${expected - rx.received.length} task.created messages missing`);
    return {
      endpoints: withEndpoints,
      creations_per_s: +(latencies.length / elapsed).toFixed(1),
      seconds: +elapsed.toFixed(2),
      create_p50_ms: pct(latencies, 50),
      create_p99_ms: pct(latencies, 99),
      messages_received: rx.received.length,
    };
  } finally {
    await stopServer(s);
    rx.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

(async () => {
  const t = await throughput();
  log('delivery throughput', JSON.stringify(t));
  const without = await creationRun(0);
  log('creation without endpoints', JSON.stringify(without));
  const withEps = await creationRun(COST_ENDPOINTS);
  log('creation with endpoints', JSON.stringify(withEps));
  const result = {
    ok: problems.length === 0,
    problems,
    cores: require('node:os').cpus().length,
    throughput: t,
    creation: {
      without_endpoints: without,
      with_endpoints: withEps,
      added_p50_ms: +(withEps.create_p50_ms - without.create_p50_ms).toFixed(2),
      added_p99_ms: +(withEps.create_p99_ms - without.create_p99_ms).toFixed(2),
      creations_per_s_change_pct: +((withEps.creations_per_s / without.creations_per_s - 1) * 100).toFixed(1),
    },
  };
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(result.ok ? 0 : 1);
})().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
