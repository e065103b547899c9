#!/usr/bin/env node
/*
 * Benchmark of callers waiting for results (CONTRACT §16) against the built server on the
 * embedded stores:
 *
 *   npm run build && node bench/waiters.js [--waiters 2000] [--delay-ms 20000] [--short-wait 5]
 *
 * The server runs with LOCAL_SUPPLIER_DELAY_MS=`delay-ms` (a task stays queued that long, then
 * running as long), RATE_LIMITS=off and its admin port on, whose /metrics give the server's
 * resident memory and event-loop delay (prom-client's histogram of `monitorEventLoopDelay`,
 * sampled every 10 ms and reset at each scrape: a scrape every second gives one window each).
 * One account creates `waiters` tasks (32 at a time), then:
 * 1. idle: three 1-second windows without waiters (the baseline);
 * 2. timeouts: one caller per task, all at once, GET /v1/tasks/{id} with Prefer: wait=`short-wait`
 *    on tasks that are still queued: every answer must be the queued task with
 *    Preference-Applied; how late each came after its `short-wait` seconds (p50/p99/max);
 * 3. results: one caller per task, all at once, Prefer: wait=60, held while the tasks go
 *    running and then finish (all within about two `delay-ms`): every answer must be the
 *    finished task; how long after the task's last change (`updated_at`, its settlement) each
 *    answer arrived (p50/p99/max), and GET /v1/wallet probed once a second meanwhile.
 * Each phase reports the server's peak resident memory and the event-loop delay of its windows
 * (p50 of the windows' p99, the largest p99, the largest max; every figure includes the 10 ms
 * sampling interval); phase 3 apart while the callers' requests arrive (the first window),
 * while the server only holds them (the tasks still queued) and while it also runs the tasks. A timeout's lateness counts from the moment all the
 * requests were started, so it includes opening the connections and serving the requests.
 * Each caller has its own connection.
 *
 * Prints one JSON object; `ok` false (exit 1) when an answer is missing or not as expected.
 * Results go to docs/benchmarks.md.
 */
'use strict';
const http = require('node:http');
const net = require('node:net');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
const { randomUUID } = require('node:crypto');
const { startServer, stopServer, account, request, pct, sleep } = require('./tasks');

const { values: args } = parseArgs({
  options: {
    waiters: { type: 'string', default: '2000' },
    'delay-ms': { type: 'string', default: '20000' },
    'short-wait': { type: 'string', default: '5' },
  },
});
const WAITERS = Number(args.waiters);
const DELAY_MS = Number(args['delay-ms']);
const SHORT_WAIT = Number(args['short-wait']);
const ADMIN_TOKEN = `bench-${randomUUID()}`;
const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const problems = [];

/** Every waiter on a socket of its own: no pooling limit. */
const waitAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** GET with Prefer: wait=N: the answer, the Preference-Applied header and when it arrived (ms since the epoch). */
function waitFor(port, auth, id, seconds) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: `/v1/tasks/${id}`, agent: waitAgent, headers: { ...auth, Prefer: `wait=${seconds}` } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const at = Date.now();
        let body = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          /* reported below */
        }
        resolve({ status: res.statusCode, applied: res.headers['preference-applied'], body, at });
      });
    });
    req.on('error', (err) => resolve({ status: 0, error: err.message, at: Date.now() }));
    req.end();
  });
}

/** The server's resident memory (MB) and this window's event-loop delay (ms), from its admin metrics (each scrape starts a new window). */
async function scrape(adminPort) {
  const r = await request(adminPort, 'GET', '/metrics', { Authorization: `Bearer ${ADMIN_TOKEN}` });
  const metric = (name) => {
    const m = new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(String(r.body));
    return m ? Number(m[1]) : NaN;
  };
  return {
    rss_mb: Math.round(metric('gensvc_process_resident_memory_bytes') / 1048576),
    p50_ms: +(metric('gensvc_nodejs_eventloop_lag_p50_seconds') * 1000).toFixed(1),
    p99_ms: +(metric('gensvc_nodejs_eventloop_lag_p99_seconds') * 1000).toFixed(1),
    max_ms: +(metric('gensvc_nodejs_eventloop_lag_max_seconds') * 1000).toFixed(1),
  };
}

/** Scrapes once a second until `done` resolves: every window (with the time it ended) and the probe's timings. */
async function watch(adminPort, done, probe) {
  let finished = false;
  done.then(() => (finished = true));
  const windows = [];
  const probes = [];
  await scrape(adminPort); // starts the first window
  while (!finished) {
    await Promise.race([sleep(1000), done]);
    if (probe) probes.push(await probe());
    windows.push({ ...(await scrape(adminPort)), at: Date.now() });
  }
  return { windows, probes };
}

/** Peak memory and event-loop delay over some windows. */
function summary(windows) {
  if (!windows.length) return { windows: 0 };
  return {
    windows: windows.length,
    rss_peak_mb: Math.max(...windows.map((w) => w.rss_mb)),
    eventloop_p99_median_ms: pct(windows.map((w) => w.p99_ms), 50),
    eventloop_p99_worst_ms: Math.max(...windows.map((w) => w.p99_ms)),
    eventloop_max_ms: Math.max(...windows.map((w) => w.max_ms)),
  };
}

/** Runs `fn` `n` times, `width` at a time. */
async function pool(n, width, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-bench-waiters-'));
  const adminPort = await freePort();
  const s = await startServer(dir, { LOCAL_SUPPLIER_DELAY_MS: String(DELAY_MS), ADMIN_TOKEN, ADMIN_PORT: String(adminPort) });
  const result = { waiters: WAITERS, delay_ms: DELAY_MS, short_wait_s: SHORT_WAIT };
  try {
    const { auth } = await account(s, '100000');
    const ids = [];
    const createdAt = Date.now();
    await pool(WAITERS, 32, async () => {
      const q = await request(s.port, 'POST', '/v1/quotes', auth, { model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'benchmark' } });
      const t = await request(s.port, 'POST', '/v1/tasks', { ...auth, 'Idempotency-Key': `bench-${randomUUID()}` }, { quote_id: q.body.quote_id });
      if (t.status !== 202) throw new Error(`create: ${t.status} ${JSON.stringify(t.body)}`);
      ids.push(t.body.id);
    });
    result.create_seconds = +((Date.now() - createdAt) / 1000).toFixed(1);
    log(`${ids.length} tasks created in ${result.create_seconds} s`);

    result.idle = summary((await watch(adminPort, sleep(3000))).windows);
    log('idle', JSON.stringify(result.idle));

    // 2. every caller's wait ends by its timeout (the tasks stay queued for delay-ms)
    const sentShort = Date.now();
    const short = Promise.all(ids.map((id) => waitFor(s.port, auth, id, SHORT_WAIT)));
    result.timeouts = summary((await watch(adminPort, short)).windows);
    const shortAnswers = await short;
    const late = shortAnswers.map((a) => a.at - sentShort - SHORT_WAIT * 1000);
    const shortOk = shortAnswers.filter((a) => a.status === 200 && a.applied === `wait=${SHORT_WAIT}` && a.body?.status === 'queued').length;
    Object.assign(result.timeouts, { answered_as_expected: shortOk, late_p50_ms: pct(late, 50), late_p99_ms: pct(late, 99), late_max_ms: Math.max(...late) });
    if (shortOk !== WAITERS) problems.push(`timeouts: ${WAITERS - shortOk} answers not the queued task with Preference-Applied (${JSON.stringify(shortAnswers.find((a) => a.status !== 200 || a.body?.status !== 'queued'))})`);
    if (Date.now() - createdAt > DELAY_MS) problems.push('timeouts: some tasks may have started before their waits ended; use a larger --delay-ms');
    log('timeouts', JSON.stringify(result.timeouts));

    // 3. every caller's wait ends with its task's result
    const long = Promise.all(ids.map((id) => waitFor(s.port, auth, id, 60)));
    const probe = async () => {
      const t0 = process.hrtime.bigint();
      await request(s.port, 'GET', '/v1/wallet', auth);
      return +(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1);
    };
    const watched = await watch(adminPort, long, probe);
    // The requests arrive in the first window; until the tasks start (delay-ms after their
    // creation) the server then only holds the waiters; after that it runs the tasks too.
    const startAt = createdAt + DELAY_MS;
    result.results = {
      arriving: summary(watched.windows.slice(0, 1)),
      holding: summary(watched.windows.slice(1).filter((w) => w.at < startAt)),
      running_and_finishing: summary(watched.windows.filter((w) => w.at >= startAt)),
      wallet_probe_p50_ms: pct(watched.probes, 50),
      wallet_probe_max_ms: Math.max(...watched.probes),
    };
    const answers = await long;
    const finished = answers.filter((a) => a.status === 200 && a.applied === 'wait=60' && a.body?.status === 'succeeded' && a.body?.settlement_status === 'settled');
    const wake = finished.map((a) => a.at - Date.parse(a.body.updated_at));
    Object.assign(result.results, { answered_finished: finished.length, wake_p50_ms: pct(wake, 50), wake_p99_ms: pct(wake, 99), wake_max_ms: Math.max(...wake) });
    if (finished.length !== WAITERS) problems.push(`results: ${WAITERS - finished.length} answers not the finished task (${JSON.stringify(answers.find((a) => !finished.includes(a)))})`);
    log('results', JSON.stringify(result.results));
  } finally {
    await stopServer(s);
    rmSync(dir, { recursive: true, force: true });
  }
  result.ok = problems.length === 0;
  if (problems.length) result.problems = problems;
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  process.exit(result.ok ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
