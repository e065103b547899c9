#!/usr/bin/env node
/*
 * Task creation, gensvc against the plain implementation (bench/reference/server.js), in one
 * run under the same load:
 *
 *   npm run build && node bench/creation-vs-reference.js [--seconds 10] [--concurrency 32]
 *     [--rate 500] [--rounds 2] [--skip closed,rate] [--servers gensvc,reference]
 *
 * 1. closed loop: `concurrency` connections, each sending POST /v1/quotes then POST /v1/tasks
 *    with the quote just issued, for `seconds` (autocannon, in this process): pairs/s and p99 of
 *    each request; after a 2-second warm-up on the same server;
 * 2. fixed rate: `rate` pairs per second offered, open loop, started evenly (one pair every
 *    1000/rate ms, each pair on a keep-alive connection of its own while it runs): p50/p99/max of
 *    every request, pairs answered per second.
 * The two servers run one after the other, `rounds` times each, alternating (so a slow minute of
 * the machine does not fall on one of them only); each run on a fresh data directory. gensvc runs
 * as `npm start` would run it on the embedded stores, with `RATE_LIMITS=off` and its built-in
 * supplier slowed so that tasks stay queued (as in bench/tasks.js). Prints one JSON object: every
 * run, the best of each side, and the ratios gensvc / reference. Exit code 1 if any answer was
 * not 200 / 202 or a connection failed.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const http = require('node:http');
const { mkdirSync, mkdtempSync, rmSync, readFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
const { randomUUID } = require('node:crypto');
const autocannon = require('autocannon');
const { startServer, stopServer, account, pct, sleep } = require('./tasks');

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '32' },
    rate: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '2' },
    skip: { type: 'string', default: '' },
    servers: { type: 'string', default: 'gensvc,reference' },
  },
});
const SECONDS = Number(args.seconds);
const CONCURRENCY = Number(args.concurrency);
const RATE = Number(args.rate);
const ROUNDS = Number(args.rounds);
const skip = new Set(args.skip.split(',').filter(Boolean));
const SERVERS = new Set(args.servers.split(',').filter(Boolean));
const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const QUOTE = JSON.stringify({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'benchmark' } });

async function freePort() {
  const net = require('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The plain implementation on a fresh database, with one account; `{port, auth, stop, pid}`. */
async function startReference(dir) {
  const script = join(__dirname, 'reference', 'server.js');
  mkdirSync(dir, { recursive: true });
  const env = { ...process.env, DB: join(dir, 'reference.db') };
  const key = `ref_${randomUUID()}`;
  const made = spawnSync(process.execPath, [script, '--account', key, '1000000'], { env, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`reference account: ${made.stderr}`);
  const port = await freePort();
  const child = spawn(process.execPath, [script], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`reference server exited with ${code}`)));
  });
  return {
    name: 'reference',
    port,
    pid: child.pid,
    auth: { Authorization: `Bearer ${key}` },
    stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))),
  };
}

/** gensvc on a fresh data directory, with one account; `{port, auth, stop, pid}`. */
async function startGensvc(dir) {
  const s = await startServer(dir);
  const { auth } = await account(s, '1000000');
  return { name: 'gensvc', port: s.port, pid: s.server.pid, auth, stop: () => stopServer(s) };
}

/** CPU seconds (user + system) of the process, or of its main thread only. */
function cpuOf(pid, mainThread = false) {
  const f = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Closed loop of quote + create pairs over `concurrency` connections for `seconds`. */
async function closedLoop(server, seconds) {
  const quoteMs = [];
  const createMs = [];
  let bad = 0;
  const requests = [
    {
      method: 'POST',
      path: '/v1/quotes',
      headers: { ...server.auth, 'Content-Type': 'application/json' },
      body: QUOTE,
      onResponse: (status, body, context) => {
        context.quoteId = status === 200 ? JSON.parse(body).quote_id : null;
      },
    },
    {
      setupRequest: (req, context) =>
        context.quoteId
          ? {
              ...req,
              method: 'POST',
              path: '/v1/tasks',
              headers: { ...server.auth, 'Content-Type': 'application/json', 'Idempotency-Key': `bench-${randomUUID()}` },
              body: JSON.stringify({ quote_id: context.quoteId }),
            }
          : null,
    },
  ];
  const run = (duration, record) =>
    new Promise((resolve, reject) => {
      const instance = autocannon({ url: `http://127.0.0.1:${server.port}`, connections: CONCURRENCY, duration, timeout: 10, requests }, (err, r) => (err ? reject(err) : resolve(r)));
      instance.on('response', (_c, status, _b, t) => {
        if (!record) return;
        if (status === 200) quoteMs.push(t);
        else if (status === 202) createMs.push(t);
        else bad++;
      });
    });
  await run(2, false);
  const c0 = cpuOf(server.pid);
  const m0 = cpuOf(server.pid, true);
  const r = await run(seconds, true);
  const pairs = createMs.length;
  return {
    pairs_per_s: +(createMs.length / r.duration).toFixed(1),
    quote_p50_ms: pct(quoteMs, 50),
    quote_p99_ms: pct(quoteMs, 99),
    create_p50_ms: pct(createMs, 50),
    create_p99_ms: pct(createMs, 99),
    server_cores: +((cpuOf(server.pid) - c0) / r.duration).toFixed(2),
    // CPU per pair: less sensitive to other load on the machine than pairs/s
    server_cpu_ms_per_pair: pairs ? +((1000 * (cpuOf(server.pid) - c0)) / pairs).toFixed(3) : null,
    main_thread_cpu_ms_per_pair: pairs ? +((1000 * (cpuOf(server.pid, true) - m0)) / pairs).toFixed(3) : null,
    not_2xx: bad + r.resets,
    errors: r.errors,
  };
}

/** One POST on its own keep-alive agent; resolves `{status, body, ms}`. */
function post(agent, port, path, headers, body) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, agent, headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    req.on('error', () => resolve({ status: 0, body: '', ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    req.end(body);
  });
}

/** Open loop: `rate` pairs per second for `seconds` (after 2 s of warm-up left out). */
async function fixedRate(server, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4096 });
  const lat = [];
  let bad = 0;
  let answered = 0;
  const warmup = 2;
  const total = Math.round(RATE * (warmup + seconds));
  const interval = 1000 / RATE;
  const pairs = [];
  const t0 = performance.now();
  let c0 = null;
  for (let i = 0; i < total; i++) {
    const due = t0 + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const measured = i >= RATE * warmup;
    if (measured && c0 === null) c0 = { cpu: cpuOf(server.pid), at: performance.now() };
    pairs.push(
      (async () => {
        const quote = await post(agent, server.port, '/v1/quotes', server.auth, QUOTE);
        if (quote.status !== 200) return void bad++;
        const created = await post(agent, server.port, '/v1/tasks', { ...server.auth, 'Idempotency-Key': `bench-${randomUUID()}` }, JSON.stringify({ quote_id: JSON.parse(quote.body).quote_id }));
        if (created.status !== 202) return void bad++;
        if (measured) {
          lat.push(quote.ms, created.ms);
          answered++;
        }
      })(),
    );
  }
  const sentFor = (performance.now() - c0.at) / 1000;
  await Promise.all(pairs);
  const cores = (cpuOf(server.pid) - c0.cpu) / ((performance.now() - c0.at) / 1000);
  agent.destroy();
  return {
    offered_pairs_per_s: RATE,
    sent_pairs_per_s: +((total - RATE * warmup) / sentFor).toFixed(1),
    answered_pairs: answered,
    request_p50_ms: pct(lat, 50),
    request_p99_ms: pct(lat, 99),
    request_max_ms: lat.length ? +Math.max(...lat).toFixed(1) : null,
    server_cores: +cores.toFixed(2),
    not_2xx_or_errors: bad,
  };
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'gensvc-bench-vs-'));
  const out = { machine: { cpus: require('node:os').cpus().length, node: process.version, loadavg_at_start: require('node:os').loadavg().map((x) => +x.toFixed(2)) }, runs: [] };
  let n = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const start of [startGensvc, startReference].filter((f) => SERVERS.has(f === startGensvc ? 'gensvc' : 'reference'))) {
        for (const mode of ['closed', 'rate']) {
          if (skip.has(mode)) continue;
          const server = await start(join(work, String(n++)));
          try {
            log(`round ${round + 1}: ${server.name}, ${mode}…`);
            const result = mode === 'closed' ? await closedLoop(server, SECONDS) : await fixedRate(server, SECONDS);
            out.runs.push({ server: server.name, mode, round: round + 1, ...result });
          } finally {
            await server.stop();
          }
        }
      }
    }
    const best = (name, mode, key, pick) => {
      const xs = out.runs.filter((r) => r.server === name && r.mode === mode).map((r) => r[key]);
      return xs.length ? pick(...xs) : null;
    };
    out.summary = {};
    for (const name of ['gensvc', 'reference']) {
      out.summary[name] = {
        closed_pairs_per_s: best(name, 'closed', 'pairs_per_s', Math.max),
        [`rate_${RATE}_request_p99_ms`]: best(name, 'rate', 'request_p99_ms', Math.min),
      };
    }
    const g = out.summary.gensvc;
    const r = out.summary.reference;
    if (g.closed_pairs_per_s && r.closed_pairs_per_s) out.summary.pairs_ratio_gensvc_to_reference = +(g.closed_pairs_per_s / r.closed_pairs_per_s).toFixed(2);
    out.machine.loadavg_at_end = require('node:os').loadavg().map((x) => +x.toFixed(2));
    const problems = out.runs.filter((x) => x.not_2xx || x.errors || x.not_2xx_or_errors);
    out.ok = problems.length === 0;
    process.stdout.write(JSON.stringify(out, null, 1) + '\n');
    if (!out.ok) process.exitCode = 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ error: String(err && err.stack ? err.stack : err) }) + '\n');
  process.exit(1);
});

