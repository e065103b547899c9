#!/usr/bin/env node
/*
 * A provider channel under load, against the Replicate stand-in on loopback:
 *
 *   npm run build && node bench/provider-channel.js [--jobs 10000] [--rpm 600]
 *     [--poll-ms 1000] [--archive-mib 200] [--skip budget,archive]
 *
 * 1. budget: `jobs` tasks of a model routed to one channel with `requests_per_minute` =
 *    `rpm`, polled (no webhooks). All are created at once; the channel submits them within its
 *    budget; once the provider holds every one, the stand-in finishes them all at the same
 *    moment and the bench waits until every task has succeeded. Reported: the most requests the
 *    stand-in received in any 60-second window (must not exceed `rpm`, plus one at a window's
 *    edge), requests by kind (list pages, status requests), the jobs seen after they finished
 *    (every one must be: a task succeeds only on the provider's word), and the
 *    time from the provider's completion to each task's `succeeded` (p50, p99, max; a full pass
 *    over the open jobs takes jobs / rpm minutes, the floor the budget sets).
 * The stand-in runs in a process of its own (bench/lib/stand-in-process.js).
 * 2. archive: (after a 1 MiB warm-up) one task whose output is an `archive-mib` MiB MP4 served by the stand-in; the
 *    time from the provider's completion to `succeeded` (download, type check, SHA-256, blob
 *    store) against `curl -s URL | sha256sum` on the same file, and the server's resident
 *    memory before and at its peak (VmRSS sampled every 50 ms, and VmHWM).
 * Prints one JSON object. Results are recorded in docs/benchmarks.md. The budget part lasts
 * about 2 × jobs / rpm minutes (35 minutes with the defaults).
 */
'use strict';
const { spawn, spawnSync, execSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
const { startStandIn } = require('./lib/stand-in-process');

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '10000' },
    rpm: { type: 'string', default: '600' },
    'poll-ms': { type: 'string', default: '1000' },
    'archive-mib': { type: 'string', default: '200' },
    skip: { type: 'string', default: '' },
  },
});
const JOBS = Number(values.jobs);
const RPM = Number(values.rpm);
const SKIP = new Set(values.skip.split(',').filter(Boolean));
const root = join(__dirname, '..');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (msg) => process.stderr.write(`${new Date().toISOString()} ${msg}\n`);

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function request(port, method, path, headers = {}, body) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: json };
}

const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

function catalogue(dir) {
  const file = JSON.parse(readFileSync(join(root, 'libs/catalogue/catalogue/catalogue.json'), 'utf8'));
  const { supplier: _s, supplier_model: _m, ...writer } = file.models.find((m) => m.id === 'text-writer-lite');
  const { supplier: _s2, supplier_model: _m2, ...image } = file.models.find((m) => m.id === 'image-studio-v2');
  file.models.push(
    { ...writer, id: 'budget-model', name: 'Budget model', resolved_model: 'budget-model-1', routes: [{ channel: 'rep', supplier_model: 'bench/writer' }] },
    { ...image, id: 'archive-model', name: 'Archive model', resolved_model: 'archive-model-1', routes: [{ channel: 'rep-archive', supplier_model: 'bench/video' }] },
  );
  const path = join(dir, 'catalogue.json');
  writeFileSync(path, JSON.stringify({ ...file, version: 'bench-providers' }));
  return path;
}

async function startServer(dir, standIn) {
  const port = await freePort();
  const { url, token } = await standIn.call('info');
  const channel = { type: 'replicate', base_url: url, api_token: token, probe_interval_s: 3600, request_timeout_ms: 30000, deadline_ms: 6 * 3600 * 1000 };
  const env = {
    ...process.env,
    DATA_DIR: join(dir, 'data'),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    CATALOGUE_FILE: catalogue(dir),
    SUPPLIER_CHANNELS: JSON.stringify({
      rep: { ...channel, requests_per_minute: RPM, poll_interval_ms: Number(values['poll-ms']) },
      'rep-archive': { ...channel, poll_interval_ms: 200 },
    }),
  };
  const server = spawn(process.execPath, [join(root, 'dist/apps/api/src/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  for (const t0 = Date.now(); ; ) {
    const r = await request(port, 'GET', '/health/ready').catch(() => null);
    if (r && r.status === 200) break;
    if (Date.now() - t0 > 120_000) throw new Error('the server did not start');
    await sleep(100);
  }
  log('the server is up; creating an account');
  const created = JSON.parse(spawnSync(process.execPath, [join(root, 'dist/apps/admin/src/main.js'), 'account', 'create', '--name', 'bench', '--credit', '10000000'], { env, encoding: 'utf8' }).stdout);
  const auth = { Authorization: `Bearer ${created.api_key}` };
  for (const t0 = Date.now(); (await request(port, 'GET', '/v1/wallet', auth)).status !== 200; ) {
    if (Date.now() - t0 > 10_000) throw new Error('the new key was not accepted');
    await sleep(50);
  }
  log('waiting for the route probes');
  for (const t0 = Date.now(); ; ) {
    const a = await request(port, 'GET', '/v1/models/budget-model', auth).catch((err) => log(err.message));
    const b = await request(port, 'GET', '/v1/models/archive-model', auth).catch((err) => log(err.message));
    if (a?.body?.available && b?.body?.available) break;
    if (Date.now() - t0 > 60_000) throw new Error('the routes were not verified');
    await sleep(200);
  }
  return { port, server, auth };
}

async function createTask(s, model, input) {
  const q = await request(s.port, 'POST', '/v1/quotes', s.auth, { model, capability: model === 'budget-model' ? 'text.generate' : 'image.generate', input });
  if (q.status !== 200) throw new Error(`quote: ${q.status} ${JSON.stringify(q.body)}`);
  const t = await request(s.port, 'POST', '/v1/tasks', { ...s.auth, 'Idempotency-Key': `bench-${q.body.quote_id}` }, { quote_id: q.body.quote_id });
  if (t.status !== 202) throw new Error(`task: ${t.status} ${JSON.stringify(t.body)}`);
  return t.body.id;
}

/** The most requests in any window of `windowMs` (two pointers over sorted times). */
function maxInWindow(times, windowMs) {
  const xs = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < xs.length; j++) {
    while (xs[j] - xs[i] >= windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

async function budget(s, standIn) {
  log(`creating ${JOBS} tasks`);
  const ids = [];
  for (let i = 0; i < JOBS; i += 32) ids.push(...(await Promise.all(Array.from({ length: Math.min(32, JOBS - i) }, (_, k) => createTask(s, 'budget-model', { prompt: `job ${i + k}` })))));
  log(`created; the channel submits them at ${RPM}/min`);
  for (let last = -1; (await standIn.call('jobCount')) < JOBS; ) {
    const n = await standIn.call('jobCount');
    if (n !== last && n % 1000 < 100) log(`${n} jobs at the provider`);
    last = n;
    await sleep(1000);
  }
  const finishedAt = Date.now();
  await standIn.call('succeedAll', [{ kind: 'text', text: 'done' }]);
  log('the provider finished every job; waiting for the tasks');
  const done = new Map();
  for (;;) {
    const w = await request(s.port, 'GET', '/v1/wallet', s.auth);
    if (w.body.reserved === '0.000000') break;
    await sleep(5000);
  }
  for (let page = 1; ; page++) {
    const r = await request(s.port, 'GET', `/v1/tasks?status=succeeded&limit=100&page=${page}`, s.auth);
    for (const t of r.body.data) done.set(t.id, Date.parse(t.completed_at) - finishedAt);
    if (!r.body.has_more) break;
  }
  const api = (await standIn.call('requests')).filter((r) => r.path.startsWith('/v1/'));
  const isList = (r) => r.method === 'GET' && /^\/v1\/predictions(\?|$)/.test(r.path);
  const isStatus = (r) => r.method === 'GET' && r.path.startsWith('/v1/predictions/');
  // A task succeeds only on the provider's word after it finished (a list page or a status
  // answer): a completion time after `finishedAt` for every task means every job was seen.
  const latencies = ids.map((id) => done.get(id)).filter((x) => x !== undefined);
  return {
    jobs: JOBS,
    requests_per_minute: RPM,
    max_requests_in_any_60s: maxInWindow(api.map((r) => r.at), 60_000),
    requests: {
      submit: api.filter((r) => r.method === 'POST' && r.path.endsWith('/predictions')).length,
      list_pages: api.filter(isList).length,
      status: api.filter(isStatus).length,
      probe: api.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/models/')).length,
    },
    requests_after_finishing: { list_pages: api.filter((r) => r.at >= finishedAt && isList(r)).length, status: api.filter((r) => r.at >= finishedAt && isStatus(r)).length },
    jobs_seen_after_finishing: latencies.filter((ms) => ms >= 0).length,
    tasks_succeeded: latencies.length,
    completion_to_succeeded_s: { p50: pct(latencies, 50) / 1000, p99: pct(latencies, 99) / 1000, max: Math.max(...latencies) / 1000 },
    full_pass_floor_s: (JOBS / RPM) * 60,
  };
}

function rss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)[1]);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

async function archive(s, standIn, mib) {
  const bytes = mib * 1024 * 1024;
  const seen = await standIn.call('jobCount');
  const id = await createTask(s, 'archive-model', { prompt: 'a long video' });
  for (const t0 = Date.now(); (await standIn.call('jobCount')) <= seen; await sleep(20)) {
    if (Date.now() - t0 > 30_000) throw new Error(`the provider never got the job: ${JSON.stringify((await request(s.port, 'GET', `/v1/tasks/${id}`, s.auth)).body)}`);
  }
  const job = (await standIn.call('jobs'))[seen];
  const before = rss(s.server.pid);
  let peak = before.rss;
  const sampler = setInterval(() => (peak = Math.max(peak, rss(s.server.pid).rss)), 50);
  const t0 = Date.now();
  await standIn.call('succeed', job.id, [{ kind: 'mp4', bytes }]);
  let task;
  for (;;) {
    task = (await request(s.port, 'GET', `/v1/tasks/${id}`, s.auth)).body;
    if (task.status !== 'running' && task.status !== 'queued') break;
    await sleep(20);
  }
  const archiveS = (Date.now() - t0) / 1000;
  clearInterval(sampler);
  const after = rss(s.server.pid);
  const asset = (await request(s.port, 'GET', `/v1/assets/${task.output.asset_ids[0]}`, s.auth)).body;
  const { url: standInUrl, token } = await standIn.call('info');
  const prediction = await fetch(`${standInUrl}/v1/predictions/${job.id}`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.json());
  const url = Array.isArray(prediction.output) ? prediction.output[0] : prediction.output;
  const c0 = Date.now();
  const curlSum = execSync(`curl -s ${JSON.stringify(url)} | sha256sum`, { encoding: 'utf8', maxBuffer: 1024 * 1024 }).split(' ')[0];
  const curlS = (Date.now() - c0) / 1000;
  return {
    mib: bytes / 1024 / 1024,
    status: task.status,
    stored: { size: asset.size, mime: asset.mime, checksum_matches_curl: asset.checksum === curlSum },
    archive_s: archiveS,
    curl_sha256sum_s: curlS,
    ratio: Number((archiveS / curlS).toFixed(2)),
    server_rss_mib: { before: Math.round(before.rss), peak_sampled: Math.round(peak), after: Math.round(after.rss), hwm: Math.round(after.hwm) },
  };
}

(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-bench-providers-'));
  const standIn = await startStandIn('replicate', ['bench/writer', 'bench/video']);
  const s = await startServer(dir, standIn);
  const result = { node: process.version, machine: execSync('nproc', { encoding: 'utf8' }).trim() + ' cores' };
  try {
    if (!SKIP.has('archive')) {
      // A first, small file warms the path up (code loaded and compiled, pools filled), so the
      // memory figures of the measured one are the file's own.
      result.archive_warm_up = await archive(s, standIn, 1);
      result.archive = await archive(s, standIn, Number(values['archive-mib']));
    }
    if (!SKIP.has('budget')) result.budget = await budget(s, standIn);
  } finally {
    s.server.kill('SIGTERM');
    await new Promise((r) => s.server.once('exit', r));
    standIn.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  const problems = [];
  if (result.budget && result.budget.max_requests_in_any_60s > RPM + 1) problems.push('over budget');
  if (result.budget && result.budget.jobs_seen_after_finishing < JOBS) problems.push('jobs not seen after they finished');
  if (result.archive && !result.archive.stored.checksum_matches_curl) problems.push('archived bytes differ');
  if (problems.length) {
    process.stderr.write(`problems: ${problems.join(', ')}\n`);
    process.exitCode = 1;
  }
})().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
