#!/usr/bin/env node
/*
 * Benchmark of the money path against the built server on the embedded stores:
 *
 *   npm run build && node bench/tasks.js [--seconds 10] [--concurrency 32] [--rate 500]
 *     [--rate-groups 250] [--rate-warmup 2] [--rate-connections 64] [--list-tasks 100000]
 *     [--skip throughput,rate,lists]
 *
 * The load of 1 and 2 comes from autocannon (programmatic API, in this process: it parses
 * responses with little CPU, so the server keeps the machine's cores); its latency is measured
 * from writing a request to the end of its response.
 * 1. throughput, closed loop over `concurrency` connections for `seconds`:
 *    (i) POST /v1/tasks only, each request with its own quote (issued beforehand, as many as a
 *        2-second probe says the run needs, 1.5 times over) and its own Idempotency-Key:
 *        creations/s, p50/p99 (`creations_per_s`, `create_p50_ms`, `create_p99_ms`);
 *    (ii) quote + create pairs, POST /v1/quotes then POST /v1/tasks with that quote: pairs/s,
 *        p50/p99 of each request and of the pair (`pairs_per_s`, `pair_*`, `quote_and_create_*`);
 * 2. fixed rate, on a server of its own: POST /v1/tasks at `rate` per second (quotes issued beforehand), open loop,
 *    sent evenly (see fixedRate), `rate-warmup` seconds left out, then `seconds` measured:
 *    p50/p99 latency and the rate actually reached (`reached_per_s`);
 * 3. lists: an account with `list-tasks` tasks (events written straight into the event store
 *    before the server starts, then projected at start-up), GET /v1/tasks with each filter,
 *    p50/p99 over 200 requests per query.
 *
 * Each run reports its status counts, connection errors and the tasks the server holds for its
 * account (from the wallet's reserved amount) against the 202s counted here; the cores used by
 * the server and by this process (`server_cores`, `load_generator_cores`); `ok` is false, and
 * `problems` says why, after any non-202 creation, error, lack of quotes or count that does not
 * add up (exit code 1). BENCH_KEEP_DIR=<dir> keeps the data directory there.
 *
 * Prints one JSON object. Targets (issue #4): ≥ 1,000 creations/s sustained, p99 ≤ 25 ms at
 * 500/s, GET /v1/tasks p99 ≤ 30 ms over 100,000 tasks. Results go to docs/benchmarks.md.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { randomUUID } = require('node:crypto');
const autocannon = require('autocannon');

const root = join(__dirname, '..');
const { values: args } = parseArgs({
  // required by bench/read-store.js for its helpers: no arguments of its own then
  args: require.main === module ? process.argv.slice(2) : [],
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '32' },
    rate: { type: 'string', default: '500' },
    'rate-groups': { type: 'string', default: '250' },
    'rate-warmup': { type: 'string', default: '2' },
    'rate-connections': { type: 'string', default: '64' },
    'list-tasks': { type: 'string', default: '100000' },
    skip: { type: 'string', default: '' },
  },
});
const SECONDS = Number(args.seconds);
const CONCURRENCY = Number(args.concurrency);
const RATE = Number(args.rate);
const RATE_GROUPS = Number(args['rate-groups']);
const RATE_WARMUP = Number(args['rate-warmup']);
const RATE_CONNECTIONS = Number(args['rate-connections']);
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
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', LOCAL_SUPPLIER_DELAY_MS: '600000', RATE_LIMITS: 'off', ...extraEnv };
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
  agent.destroy(); // on a busy machine the admin CLI can outlast the server's keep-alive timeout
  const auth = { Authorization: `Bearer ${created.api_key}` };
  for (let i = 0; i < 50; i++) {
    // A keep-alive socket the server closed while the admin CLI ran (slow on a busy machine)
    // ends in "socket hang up": only a retry, this request changes nothing.
    if ((await request(s.port, 'GET', '/v1/wallet', auth).catch(() => ({ status: 0 }))).status === 200) break;
    await sleep(100);
  }
  return { accountId: created.account_id, auth };
}

const QUOTE = { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'benchmark' } };

/** Headers and body of POST /v1/tasks with a fresh Idempotency-Key for `quoteId`. */
function createRequest(req, auth, quoteId) {
  return {
    ...req,
    method: 'POST',
    path: '/v1/tasks',
    headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': `bench-${randomUUID()}` },
    body: JSON.stringify({ quote_id: quoteId }),
  };
}

/**
 * Runs autocannon against the server; `onResponse(status, ms)` sees every response with the
 * latency autocannon measured for it (from writing the request to the end of the response).
 */
async function cannon(s, opts, onResponse) {
  const instance = autocannon({ url: `http://127.0.0.1:${s.port}`, timeout: 10, ...opts });
  if (onResponse) instance.on('response', (_client, status, _bytes, responseMs) => onResponse(status, responseMs));
  const r = await instance;
  return {
    result: r,
    errors: r.errors, // connection errors and timeouts (timeouts counted in both)
    timeouts: r.timeouts,
    statuses: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, v]) => [code, v.count])),
  };
}

/** Issues `n` quotes of `QUOTE` (with autocannon, 32 connections) and returns their ids. */
async function issueQuotes(s, auth, n) {
  const ids = [];
  const run = await cannon(s, {
    connections: Math.min(32, n),
    amount: n,
    requests: [
      {
        method: 'POST',
        path: '/v1/quotes',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(QUOTE),
        onResponse: (status, body) => {
          if (status === 200) ids.push(JSON.parse(body).quote_id);
        },
      },
    ],
  });
  if (ids.length !== n) throw new Error(`issuing ${n} quotes: ${ids.length} issued, statuses ${JSON.stringify(run.statuses)}, ${run.errors} errors`);
  return ids;
}

/** A queue of pre-issued quote ids; `next()` gives each id once; `exhausted` once it ran dry. */
function quotePool(ids) {
  let i = 0;
  const pool = {
    size: ids.length,
    exhausted: false,
    get used() {
      return i;
    },
    next() {
      if (i < ids.length) return ids[i++];
      pool.exhausted = true;
      return 'qt_pool_exhausted'; // answered 4xx: counted as an error, and the run fails below
    },
  };
  return pool;
}

/**
 * Tasks of an account as the server sees them: the wallet's reserved amount divided by one
 * task's maximum (no task settles during the run: the local supplier answers after 10 minutes).
 * Waits until the wallet stops moving (its projection trails the commands a little).
 */
async function serverTasks(s, auth, maxAmount) {
  let last = null;
  for (let i = 0; i < 100; i++) {
    const r = await request(s.port, 'GET', '/v1/wallet', auth);
    if (r.status !== 200) throw new Error(`wallet: ${r.status} ${JSON.stringify(r.body)}`);
    if (last !== null && r.body.reserved === last) break;
    last = r.body.reserved;
    await sleep(300);
  }
  const micros = (x) => {
    const [whole, frac = ''] = String(x).split('.');
    return BigInt(whole + frac.padEnd(6, '0').slice(0, 6));
  };
  const per = micros(maxAmount);
  return micros(last) % per === 0n ? Number(micros(last) / per) : +(Number(micros(last)) / Number(per)).toFixed(2);
}

async function benchAccount(s) {
  const { auth } = await account(s, '1000000');
  const r = await request(s.port, 'POST', '/v1/quotes', auth, QUOTE);
  if (r.status !== 200) throw new Error(`quote: ${r.status} ${JSON.stringify(r.body)}`);
  return { auth, maxAmount: r.body.max_amount };
}

/** Counts of a run that did not go as planned: non-202 creations, quote failures, connection errors, timeouts. */
function problemsOf(name, { non202 = 0, quoteFailures = 0, errors = 0, timeouts = 0, exhausted = false, serverTasks: st, counted, inFlightMax }) {
  const p = [];
  if (non202) p.push(`${name}: ${non202} responses other than 202 (200 for quotes)`);
  if (quoteFailures) p.push(`${name}: ${quoteFailures} quotes not answered 200`);
  if (errors) p.push(`${name}: ${errors} connection errors or timeouts (${timeouts} timeouts)`);
  if (exhausted) p.push(`${name}: ran out of pre-issued quotes`);
  if (st !== undefined && !(st >= counted && st <= counted + inFlightMax)) p.push(`${name}: server holds ${st} tasks, autocannon counted ${counted} answered 202 (+ at most ${inFlightMax} in flight)`);
  return p;
}

/**
 * Closed loop, `concurrency` connections, `seconds` each: (i) POST /v1/tasks with quotes issued
 * beforehand (each request its own quote and Idempotency-Key), (ii) quote + create pairs
 * (POST /v1/quotes, then POST /v1/tasks with the quote just issued).
 */
async function throughput(s, problems) {
  const out = { concurrency: CONCURRENCY };

  // (i) creations with pre-issued quotes. A 2-second probe (also the warm-up) sizes the quotes
  // of the measured run: 1.5 × the probe's rate × seconds, plus a margin.
  {
    const { auth, maxAmount } = await benchAccount(s);
    const probeSeconds = 2;
    const probePool = quotePool(await issueQuotes(s, auth, 2500 * probeSeconds));
    let probe202 = 0;
    const probe = await cannon(s, { connections: CONCURRENCY, duration: probeSeconds, requests: [{ setupRequest: (req) => createRequest(req, auth, probePool.next()) }] }, (status) => {
      if (status === 202) probe202++;
    });
    const probeRate = probe202 / probe.result.duration;
    // A probe that ran out of quotes measured a server faster than 2,500/s: sized from that bound.
    const n = Math.ceil((probePool.exhausted ? 2500 : probeRate) * 1.5 * SECONDS) + 2000;
    log(`probe: ${probeRate.toFixed(0)} creations/s${probePool.exhausted ? ' (ran out of quotes)' : ''}; issuing ${n} quotes…`);
    const pool = quotePool(await issueQuotes(s, auth, n));
    const before = await serverTasks(s, auth, maxAmount);
    await settle(s);
    const lat = [];
    let non202 = 0;
    const c0 = cpuSeconds(s);
    const run = await cannon(s, { connections: CONCURRENCY, duration: SECONDS, requests: [{ setupRequest: (req) => createRequest(req, auth, pool.next()) }] }, (status, t) => {
      if (status === 202) lat.push(t);
      else non202++;
    });
    const cpu = coresSince(s, c0);
    const tasks = lat.length;
    const server = (await serverTasks(s, auth, maxAmount)) - before;
    Object.assign(out, {
      seconds: run.result.duration,
      tasks,
      creations_per_s: +(tasks / run.result.duration).toFixed(1),
      create_p50_ms: pct(lat, 50),
      create_p99_ms: pct(lat, 99),
      non_202: non202,
      errors: run.errors,
      statuses: run.statuses,
      autocannon_2xx: run.result['2xx'],
      server_tasks: server,
      quotes_issued: pool.size,
      quotes_used: pool.used,
      ...cpu,
    });
    problems.push(
      ...problemsOf('throughput', { non202, errors: run.errors + probe.errors, timeouts: run.timeouts + probe.timeouts, exhausted: pool.exhausted, serverTasks: server, counted: tasks, inFlightMax: CONCURRENCY }),
    );
    if (probe.result.non2xx && !probePool.exhausted) problems.push(`throughput probe: ${probe.result.non2xx} creations not answered 202`);
  }

  // (ii) quote + create pairs; the quote's latency, the creation's and the pair's (from sending
  // the quote request to the end of the creation's response).
  {
    const { auth, maxAmount } = await benchAccount(s);
    const quoteMs = [];
    const createMs = [];
    const pairMs = [];
    let non202 = 0;
    let quoteFailures = 0;
    const requests = [
      {
        method: 'POST',
        path: '/v1/quotes',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(QUOTE),
        setupRequest: (req, context) => {
          context.sentAt = process.hrtime.bigint();
          return req;
        },
        onResponse: (status, body, context) => {
          if (status === 200) context.quoteId = JSON.parse(body).quote_id;
        },
      },
      {
        // No quote (the quote request failed): back to the first request, counted as a reset.
        setupRequest: (req, context) => (context.quoteId ? createRequest(req, auth, context.quoteId) : null),
        onResponse: (status, _body, context) => {
          if (status === 202) pairMs.push(ms(context.sentAt));
        },
      },
    ];
    // Statuses tell the two requests apart: 200 for a quote, 202 for a creation.
    const onResponse = (status, t) => {
      if (status === 200) quoteMs.push(t);
      else if (status === 202) createMs.push(t);
      else non202++;
    };
    await cannon(s, { connections: CONCURRENCY, duration: 2, requests }, () => {}); // warm-up
    const warm = await serverTasks(s, auth, maxAmount);
    await settle(s);
    const c0 = cpuSeconds(s);
    const run = await cannon(s, { connections: CONCURRENCY, duration: SECONDS, requests }, onResponse);
    const cpu = coresSince(s, c0);
    quoteFailures = run.result.resets;
    const pairs = createMs.length;
    const server = (await serverTasks(s, auth, maxAmount)) - warm;
    Object.assign(out, {
      pairs_seconds: run.result.duration,
      pairs,
      pairs_per_s: +(pairs / run.result.duration).toFixed(1),
      pair_quote_p50_ms: pct(quoteMs, 50),
      pair_quote_p99_ms: pct(quoteMs, 99),
      pair_create_p50_ms: pct(createMs, 50),
      pair_create_p99_ms: pct(createMs, 99),
      quote_and_create_p50_ms: pct(pairMs, 50),
      quote_and_create_p99_ms: pct(pairMs, 99),
      pair_non_2xx: non202,
      pair_errors: run.errors,
      pair_statuses: run.statuses,
      pair_server_tasks: server,
      pair_load_generator_cores: cpu.load_generator_cores,
      pair_server_cores: cpu.server_cores,
      pair_load_generator_loop_delay_max_ms: cpu.load_generator_loop_delay_max_ms,
    });
    problems.push(...problemsOf('throughput pairs', { non202, quoteFailures, errors: run.errors, timeouts: run.timeouts, serverTasks: server, counted: pairs, inFlightMax: CONCURRENCY }));
  }
  return out;
}

/** CPU seconds used so far by this process and by the server's process (Linux /proc), and this process's event-loop delays from here on. */
function cpuSeconds(s) {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const own = process.cpuUsage();
  let server = null;
  try {
    const f = readFileSync(`/proc/${s.server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    server = (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    /* not Linux */
  }
  return { at: performance.now(), own: (own.user + own.system) / 1e6, server, loop };
}

/**
 * Since `c0`: cores used on average by the load generator (this process) and by the server, and
 * the longest the load generator's event loop was held up (a stall there would delay reading
 * responses and show as server latency).
 */
function coresSince(s, c0) {
  const c1 = cpuSeconds(s);
  c1.loop.disable();
  c0.loop.disable();
  const wall = (c1.at - c0.at) / 1000;
  return {
    load_generator_cores: +((c1.own - c0.own) / wall).toFixed(2),
    server_cores: c0.server === null ? null : +((c1.server - c0.server) / wall).toFixed(2),
    load_generator_loop_delay_max_ms: +(c0.loop.max / 1e6).toFixed(1),
  };
}

/**
 * Waits (up to 30 s) until the server uses less than a tenth of a core over 300 ms: the work
 * left over from issuing quotes (projections catching up) is not measured with the next run.
 */
async function settle(s) {
  for (let i = 0; i < 100; i++) {
    const c0 = cpuSeconds(s);
    if (c0.server === null) return sleep(1000);
    await sleep(300);
    if (coresSince(s, c0).server_cores < 0.1) return;
  }
}

/**
 * Open loop at `rate` creations per second for `seconds`, quotes issued beforehand.
 *
 * autocannon's `overallRate` gives each connection a share of the rate per one-second window,
 * and a connection sends its share as soon as it can when the window opens: with one instance
 * all connections open their windows together, so the requests of a second leave in one burst
 * at its start (a closed loop over all connections until the second's share is sent). To send
 * at an even rate, the run is split into `--rate-groups` autocannon instances started evenly
 * over one second, each with `overallRate` = its share and one connection per request per second
 * (each connection sends one request per window); with 250 groups at 500/s, 2 requests leave
 * every 4 ms. `--rate-groups 1` is plain autocannon (`--rate-connections` connections), which
 * sends each second's requests in one burst over its connections: its latencies then mostly
 * measure queueing behind that burst.
 *
 * Latency is autocannon's, from writing a request to the end of its response: time a request
 * waited to be sent (a connection still busy past its window, or this process's event loop) is
 * not counted, i.e. no correction for coordinated omission (autocannon's own "correction" adds
 * values in 1 ms steps and is switched off with ignoreCoordinatedOmission; the percentiles
 * below come from the raw latencies). A server falling behind shows in `reached_per_s` below
 * `target_per_s`; `max_sent_in_100ms` (against `expected_per_100ms`) shows how even sending was.
 */
async function fixedRate(s, problems) {
  const { auth, maxAmount } = await benchAccount(s);
  const groups = Math.max(1, Math.min(RATE_GROUPS, RATE));
  const share = (x, g) => Math.floor(x / groups) + (g < x % groups ? 1 : 0);
  const plan = Array.from({ length: groups }, (_, g) => {
    const rate = share(RATE, g);
    return { rate, connections: groups === 1 ? Math.min(RATE_CONNECTIONS, RATE) : rate, offsetMs: (g * 1000) / groups };
  });
  const connections = plan.reduce((n, p) => n + p.connections, 0);
  // A run stops at the first 1-second sample after its duration: quotes for 2 seconds more.
  const n = RATE * (RATE_WARMUP + SECONDS + 2) + connections;
  log(`issuing ${n} quotes for the fixed-rate run…`);
  const pool = quotePool(await issueQuotes(s, auth, n));
  const before = await serverTasks(s, auth, maxAmount);
  await settle(s);
  // Measured: the requests sent in [from, to) (ms from the start); the first `--rate-warmup`
  // seconds warm up the connections and the server and are left out (errors are counted all along).
  const from = RATE_WARMUP * 1000;
  const to = from + SECONDS * 1000;
  const inWindow = (at) => at >= from && at < to;
  const lat = [];
  const sentAt = [];
  let non202 = 0;
  let t0 = 0;
  let c0 = null;
  const onResponse = (status, t) => {
    if (status !== 202) non202++;
    else if (inWindow(performance.now() - t0 - t)) lat.push(t);
  };
  t0 = performance.now();
  const measure = sleep(from).then(() => (c0 = cpuSeconds(s)));
  const runs = await Promise.all(
    plan.map(async (p) => {
      await sleep(p.offsetMs);
      const setupRequest = (req) => {
        sentAt.push(performance.now() - t0);
        return createRequest(req, auth, pool.next());
      };
      return cannon(s, { connections: p.connections, overallRate: p.rate, ignoreCoordinatedOmission: true, duration: RATE_WARMUP + SECONDS, requests: [{ setupRequest }] }, onResponse);
    }),
  );
  await measure;
  const cpu = coresSince(s, c0); // from the end of the warm-up to the end of the last group
  const server = (await serverTasks(s, auth, maxAmount)) - before;
  const sent = sentAt.filter(inWindow).sort((a, b) => a - b);
  let maxWindow = 0;
  for (let i = 0, j = 0; i < sent.length; i++) {
    while (sent[i] - sent[j] >= 100) j++;
    maxWindow = Math.max(maxWindow, i - j + 1);
  }
  const sum = (f) => runs.reduce((x, r) => x + f(r), 0);
  const tasks = sum((r) => r.result['2xx']);
  const errors = sum((r) => r.errors);
  const statuses = {};
  for (const r of runs) for (const [code, c] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + c;
  problems.push(...problemsOf('fixed_rate', { non202, errors, timeouts: sum((r) => r.timeouts), exhausted: pool.exhausted, serverTasks: server, counted: tasks, inFlightMax: connections }));
  return {
    target_per_s: RATE,
    groups,
    connections,
    warmup_s: RATE_WARMUP,
    seconds: SECONDS,
    // Of the requests sent in the measured `seconds`: sent per second, and answered 202 per second.
    sent_per_s: +(sent.length / SECONDS).toFixed(1),
    reached_per_s: +(lat.length / SECONDS).toFixed(1),
    measured: lat.length,
    tasks, // answered 202 over the whole run, warm-up included
    non_202: non202,
    errors,
    statuses,
    server_tasks: server,
    p50_ms: pct(lat, 50),
    p99_ms: pct(lat, 99),
    max_ms: lat.length ? +Math.max(...lat).toFixed(2) : null,
    max_sent_in_100ms: maxWindow,
    expected_per_100ms: RATE / 10,
    ...cpu,
  };
}

/** Writes `count` settled or reserved tasks of one account straight into the event store. */
async function seedTasks(dataDir, accountId, count) {
  const kernel = require(join(root, 'dist/libs/kernel/src'));
  const storage = require(join(root, 'dist/libs/storage/src'));
  // seeding only, before the server starts: commits on this thread, without fsync
  const store = new storage.SqliteEventStore(join(dataDir, 'events.db'), undefined, { commits: 'inline', synchronous: 'OFF' });
  const base = Date.parse('2026-01-01T00:00:00Z');
  const modalities = [
    ['text-writer-lite', 'text'],
    ['image-studio-v2', 'image'],
    ['speech-tts-std', 'audio'],
  ];
  // Appends issued together share one transaction (group commit): 1,000 tasks at a time.
  let pending = [];
  for (let i = 0; i < count; i++) {
    const id = kernel.newId('task');
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
    pending.push(store.appendToStream(`task-${id}`, events, { expectedRevision: 'no_stream' }));
    if (pending.length >= 1000) {
      await Promise.all(pending);
      pending = [];
    }
    if (i % 100000 === 0) log(`seeded ${i} tasks…`);
  }
  await Promise.all(pending);
  // The seeded tasks are history: their reactions (submission, settlement) count as done, so
  // the reactors start after them (the projections still build their read models from them).
  const head = await store.headPosition();
  const moved = store.connection.prepare("UPDATE checkpoints SET position = ? WHERE name LIKE 'reactor:%'").run(head).changes;
  if (!moved) log('seedTasks: no reactor checkpoint to move past the seeded tasks; the next start reacts to all of them');
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
  const work = process.env.BENCH_KEEP_DIR || mkdtempSync(join(tmpdir(), 'gensvc-bench-tasks-'));
  const out = { machine: { cpus: require('node:os').cpus().length, node: process.version }, load_generator: `autocannon ${require('autocannon/package.json').version}` };
  const problems = [];
  try {
    // Each scenario gets a server of its own, so the fixed rate does not pay for the garbage
    // the closed-loop runs left behind (a major collection of their heap).
    if (!skip.has('throughput')) {
      const s = await startServer(join(work, 'throughput'));
      try {
        log('throughput…');
        out.throughput = await throughput(s, problems);
      } finally {
        await stopServer(s);
      }
    }
    if (!skip.has('rate')) {
      const s = await startServer(join(work, 'rate'));
      try {
        log(`fixed rate ${RATE}/s…`);
        out.fixed_rate = await fixedRate(s, problems);
      } finally {
        await stopServer(s);
      }
    }
    if (!skip.has('lists')) {
      log('lists…');
      out.lists = await lists(join(work, 'lists'));
    }
    out.targets = { creations_per_s: '>= 1000', fixed_rate_p99_ms: '<= 25 at 500/s', list_p99_ms: '<= 30 over 100000 tasks' };
    // Any error, non-202 creation or count that does not add up: listed here, and exit code 1.
    out.ok = problems.length === 0;
    out.problems = problems;
    process.stdout.write(JSON.stringify(out) + '\n');
    if (problems.length) process.exitCode = 1;
  } finally {
    agent.destroy();
    if (!process.env.BENCH_KEEP_DIR) rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { startServer, stopServer, admin, account, seedTasks, request, pct, ms, sleep, agent };

if (require.main === module) {
  main().catch((err) => {
    process.stdout.write(JSON.stringify({ error: String(err && err.message ? err.message : err) }) + '\n');
    process.exit(1);
  });
}
