#!/usr/bin/env node
/*
 * The embedded read store at size: start-up, memory, lists and replay over one account with
 * many tasks, against the built server:
 *
 *   npm run build && node bench/read-store.js [--sizes 100000,500000,2000000] [--lists-at 500000]
 *     [--requests 200] [--starts 3]
 *
 * For each size, in a data directory of its own:
 * 1. an account and an API key through the admin CLI; `size` tasks of that account written
 *    straight into events.db (bench/tasks.js seedTasks: one thread, no fsync; a quarter stay
 *    reserved, the rest succeed or fail and settle);
 * 2. `admin replay` in its own process (no server running) builds read.db from every event:
 *    events, seconds, events/s, and that process's CPU time and peak resident memory;
 * 3. the server started `starts` times on that directory: seconds from spawn to
 *    /health/ready answering 200 (polled every 100 ms) and the resident memory then (VmRSS);
 * 4. at `lists-at` tasks: GET /v1/tasks with each filter and several `q` searches, `requests`
 *    times each, p50/p99 in ms, then the server's resident memory and its peak (VmHWM).
 *
 * Prints one JSON object (`missed` lists the measurements that miss their target). Targets: start < 2 s and RSS < 300 MB at every size; list p99
 * <= 10 ms per filter and `q` p99 <= 20 ms at 500,000 tasks. Results: docs/benchmarks.md.
 * BENCH_KEEP_DIR=<dir> keeps the data directories there.
 */
'use strict';
const { existsSync, mkdtempSync, readFileSync, rmSync, statSync } = require('node:fs');
const { tmpdir, loadavg } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
const { spawnSync } = require('node:child_process');
const { startServer, stopServer, admin, seedTasks, request, pct, ms, sleep, agent } = require('./tasks');

const root = join(__dirname, '..');
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,500000,2000000' },
    'lists-at': { type: 'string', default: '500000' },
    requests: { type: 'string', default: '200' },
    starts: { type: 'string', default: '3' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const LISTS_AT = Number(args['lists-at']);
const REQUESTS = Number(args.requests);
const STARTS = Number(args.starts);
const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const mb = (kb) => Math.round(kb / 1024);

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1]);
  return { rss_mb: mb(kb('VmRSS')), peak_rss_mb: mb(kb('VmHWM')) };
}

function adminCli(dataDir, ...argv) {
  const r = spawnSync(process.execPath, ['--require', join(__dirname, 'process-usage.js'), join(root, 'dist/apps/admin/src/main.js'), ...argv], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ADMIN_TOKEN: '', BENCH_USAGE_FILE: join(dataDir, 'admin-usage.json') },
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`admin ${argv.join(' ')}: ${r.stdout} ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout);
}

const fileMb = (f) => (existsSync(f) ? Math.round(statSync(f).size / 1048576) : 0);

async function lists(s, auth) {
  const first = await request(s.port, 'GET', '/v1/tasks?limit=1', auth);
  const idPart = first.body.data[0].id.slice(-8);
  const queries = {
    all: '',
    page_50: '?page=50&limit=100',
    page_1000: '?page=1000&limit=100',
    status: '?status=failed',
    modality: '?modality=image',
    settlement: '?settlement_status=settled',
    connection: '?connection_id=key_a',
    created_range: '?created_from=2026-01-01T10:00:00Z&created_before=2026-01-01T12:00:00Z',
    amount: '?min_amount=0.01&max_amount=1',
    combined: '?status=succeeded&modality=text&min_amount=0.02&limit=50',
    q_title: '?q=number%20777',
    q_id: `?q=${idPart}`,
    q_every_task: '?q=Seeded%20task',
    q_two_chars: '?q=77',
    q_none: '?q=no%20such%20title',
    q_with_status: '?q=number%2012&status=succeeded',
  };
  const out = {};
  for (const [name, q] of Object.entries(queries)) {
    const lat = [];
    let rows = 0;
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = process.hrtime.bigint();
      const r = await request(s.port, 'GET', `/v1/tasks${q}`, auth);
      lat.push(ms(t0));
      if (r.status !== 200) throw new Error(`list ${name}: ${r.status} ${JSON.stringify(r.body)}`);
      rows = r.body.data.length;
    }
    out[name] = { query: q || '(none)', rows, p50_ms: pct(lat, 50), p99_ms: pct(lat, 99) };
  }
  return out;
}

async function size(work, n) {
  const dataDir = join(work, `tasks-${n}`);
  const result = { tasks: n };
  log(`${n}: account…`);
  let s = await startServer(dataDir);
  const accountId = admin(s.env, 'account', 'create', '--name', 'bench', '--credit', '1').account_id;
  agent.destroy(); // the admin CLI may outlast the server's keep-alive timeout
  for (let i = 0; i < 100 && (await request(s.port, 'GET', '/health/ready').catch(() => null))?.status !== 200; i++) await sleep(100);
  // the reactors see the account's events (they poll every 200 ms) and store their checkpoints
  // when the server stops, so seedTasks can move them past the seeded history
  await sleep(1000);
  await stopServer(s);
  agent.destroy(); // no kept-alive socket to that server may serve the next one on the same port
  const key = adminCli(dataDir, 'api-key', 'create', '--account', accountId);
  const auth = { Authorization: `Bearer ${key.api_key}` };
  log(`${n}: seeding…`);
  let t0 = Date.now();
  await seedTasks(dataDir, accountId, n);
  result.seed_seconds = (Date.now() - t0) / 1000;
  log(`${n}: replay into read.db…`);
  t0 = Date.now();
  const replay = adminCli(dataDir, 'replay');
  const usage = JSON.parse(readFileSync(join(dataDir, 'admin-usage.json'), 'utf8'));
  result.replay = {
    events: replay.events,
    seconds: replay.seconds,
    events_per_second: Math.round(replay.events / replay.seconds),
    wall_seconds: (Date.now() - t0) / 1000,
    process_cpu_seconds: +usage.cpu_seconds.toFixed(2),
    process_peak_rss_mb: usage.peak_rss_mb,
  };
  result.events_db_mb = fileMb(join(dataDir, 'events.db'));
  result.read_db_mb = fileMb(join(dataDir, 'read.db'));
  result.starts = [];
  for (let i = 0; i < STARTS; i++) {
    log(`${n}: start ${i + 1}…`);
    s = await startServer(dataDir);
    try {
      result.starts.push({ start_s: +s.startSeconds.toFixed(2), ...memory(s.server.pid) });
      if (n === LISTS_AT && i === STARTS - 1) {
        log(`${n}: lists…`);
        result.lists = await lists(s, auth);
        result.after_lists = memory(s.server.pid);
      }
    } finally {
      await stopServer(s);
      agent.destroy();
    }
  }
  result.load_average = loadavg().map((l) => Math.round(l * 100) / 100);
  result.start_s_max = Math.max(...result.starts.map((x) => x.start_s));
  result.rss_mb_max = Math.max(...result.starts.map((x) => x.peak_rss_mb), result.after_lists ? result.after_lists.peak_rss_mb : 0);
  if (!process.env.BENCH_KEEP_DIR) rmSync(dataDir, { recursive: true, force: true });
  log(JSON.stringify(result));
  return result;
}

/** The measurements that miss their target (an empty list when all are met). */
function missedTargets(sizes) {
  const missed = [];
  for (const r of sizes) {
    if (r.start_s_max >= 2) missed.push(`${r.tasks} tasks: start ${r.start_s_max} s`);
    if (r.rss_mb_max >= 300) missed.push(`${r.tasks} tasks: RSS ${r.rss_mb_max} MB`);
    for (const [name, l] of Object.entries(r.lists ?? {})) {
      const limit = name.startsWith('q_') ? 20 : 10;
      if (l.p99_ms > limit) missed.push(`${r.tasks} tasks: ${name} p99 ${l.p99_ms} ms > ${limit}`);
    }
  }
  return missed;
}

async function main() {
  for (const f of ['dist/apps/api/src/main.js', 'dist/apps/admin/src/main.js']) if (!existsSync(join(root, f))) throw new Error('build first: npm run build');
  const work = process.env.BENCH_KEEP_DIR || mkdtempSync(join(tmpdir(), 'gensvc-bench-read-'));
  const out = { machine: { cpus: require('node:os').cpus().length, node: process.version }, sizes: [] };
  try {
    for (const n of SIZES) out.sizes.push(await size(work, n));
    out.load_average = loadavg().map((l) => Math.round(l * 100) / 100);
    out.targets = { start_s: '< 2', rss_mb: '< 300', list_p99_ms: `<= 10 at ${LISTS_AT}`, q_p99_ms: `<= 20 at ${LISTS_AT}` };
    out.missed = missedTargets(out.sizes);
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    agent.destroy();
    if (!process.env.BENCH_KEEP_DIR) rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ error: String(err && err.stack ? err.stack : err) }) + '\n');
  process.exit(1);
});
