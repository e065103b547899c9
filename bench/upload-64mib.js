#!/usr/bin/env node
/*
 * Benchmark: one 64 MiB prepared upload (PUT + complete) against the built server on the
 * embedded blob store, compared with a plain `sha256sum` + `cp` of the same bytes, while
 * sampling the server's resident memory.
 *
 *   npm run build && node bench/upload-64mib.js [--runs 3]
 *
 * Prints one JSON object. Targets (issue #6): throughput ≥ 70% of sha256sum + cp, and the
 * server's RSS grows by less than 32 MiB during the upload. The first 64 MiB upload of a
 * fresh process is reported separately (`first_upload_*`); the medians and the RSS maximum
 * are over the following `--runs` uploads.
 */
'use strict';
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const { createHash, randomBytes } = require('node:crypto');
const { closeSync, createReadStream, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const SIZE = 64 * 1024 * 1024;
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 3;
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

/** A 64 MiB WAV file (header + random PCM), so the real-type check has something to check. */
function makeWav(file) {
  const fd = openSync(file, 'w');
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(SIZE - 8, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(44100, 24);
  header.writeUInt32LE(88200, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(SIZE - 44, 40);
  const hash = createHash('sha256').update(header);
  writeSync(fd, header);
  let left = SIZE - 44;
  while (left > 0) {
    const chunk = randomBytes(Math.min(left, 1 << 20));
    hash.update(chunk);
    writeSync(fd, chunk);
    left -= chunk.length;
  }
  closeSync(fd);
  return hash.digest('hex');
}

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function rssOf(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

function request(port, method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode, body: json });
      });
    });
    req.on('error', reject);
    if (body && typeof body.pipe === 'function') body.pipe(req);
    else req.end(body);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const entry = join(root, 'dist/apps/api/src/main.js');
  const admin = join(root, 'dist/apps/admin/src/main.js');
  if (!existsSync(entry) || !existsSync(admin)) throw new Error('build first: npm run build');
  const work = mkdtempSync(join(tmpdir(), 'gensvc-bench-'));
  const dataDir = join(work, 'data');
  const file = join(work, 'bench.wav');
  log('writing the 64 MiB test file…');
  const checksum = makeWav(file);

  // Baseline: sha256sum + cp of the same bytes (file in the page cache, as for the server).
  const baseline = [];
  for (let i = 0; i < runs + 1; i++) {
    const t0 = process.hrtime.bigint();
    execFileSync('sha256sum', [file], { stdio: 'ignore' });
    execFileSync('cp', [file, join(work, `copy-${i}.wav`)]);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (i > 0) baseline.push(s); // the first run warms the cache
    rmSync(join(work, `copy-${i}.wav`));
  }

  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMITS: 'off' };
  const server = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    for (let i = 0; ; i++) {
      const r = await request(port, 'GET', '/health/ready').catch(() => null);
      if (r && r.status === 200) break;
      if (i > 200) throw new Error('server did not start');
      await sleep(100);
    }
    const created = spawnSync(process.execPath, [admin, 'account', 'create', '--name', 'bench'], { env, encoding: 'utf8' });
    const { api_key: apiKey } = JSON.parse(created.stdout);
    const auth = { Authorization: `Bearer ${apiKey}` };

    // Warm-up: one small direct upload (JIT, first request), not a large one.
    const small = readFileSync(file).subarray(0, 1 << 20);
    for (let tries = 0; ; tries++) {
      const w = await request(port, 'POST', '/v1/uploads', { ...auth, 'Content-Type': 'audio/wav', 'X-Filename': 'warm-up.wav', 'Content-Length': small.length }, small);
      if (w.status === 201 || tries > 30) break;
      await sleep(100); // the new key reaches the server within a second
    }

    const results = [];
    let first;
    for (let i = 0; i < runs + 1; i++) {
      const meta = JSON.stringify({ name: 'bench.wav', mime: 'audio/wav', size: SIZE, checksum, idempotency_key: `bench-run-${i}-${Date.now()}` });
      let prepared;
      for (let tries = 0; ; tries++) {
        prepared = await request(port, 'POST', '/v1/uploads/prepare', { ...auth, 'Content-Type': 'application/json' }, meta);
        if (prepared.status === 200 || tries > 30) break;
        await sleep(100); // the new key reaches the server within a second
      }
      if (prepared.status !== 200) throw new Error(`prepare: ${JSON.stringify(prepared.body)}`);
      global.gc?.();
      await sleep(300);
      const rssBefore = rssOf(server.pid);
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(server.pid))), 10);
      const t0 = process.hrtime.bigint();
      const put = await request(port, 'PUT', `/v1/uploads/${prepared.body.upload_id}/content`, { ...prepared.body.upload.headers, 'Content-Length': SIZE }, createReadStream(file, { highWaterMark: 1 << 20 }));
      const t1 = process.hrtime.bigint();
      const rssAfterPut = rssPeak;
      const done = await request(port, 'POST', `/v1/uploads/${prepared.body.upload_id}/complete`, { ...auth, 'Content-Type': 'application/json' }, '{}');
      const t2 = process.hrtime.bigint();
      clearInterval(sampler);
      rssPeak = Math.max(rssPeak, rssOf(server.pid));
      if (put.status !== 200 || done.status !== 200) throw new Error(`upload failed: ${JSON.stringify(put.body)} ${JSON.stringify(done.body)}`);
      const r = { put_rss_growth_mib: (rssAfterPut - rssBefore) / 1048576, put_s: Number(t1 - t0) / 1e9, complete_s: Number(t2 - t1) / 1e9, total_s: Number(t2 - t0) / 1e9, rss_growth_mib: (rssPeak - rssBefore) / 1048576 };
      log(`run ${i}${i === 0 ? ' (first large upload of the process)' : ''}: PUT ${r.put_s.toFixed(3)} s, complete ${r.complete_s.toFixed(3)} s, RSS +${r.rss_growth_mib.toFixed(1)} MiB (after PUT +${r.put_rss_growth_mib.toFixed(1)})`);
      if (i > 0) results.push(r);
      else first = r;
    }

    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const base = median(baseline);
    const total = median(results.map((r) => r.total_s));
    const out = {
      bytes: SIZE,
      runs,
      baseline_sha256sum_cp_s: +base.toFixed(3),
      baseline_mib_per_s: +(64 / base).toFixed(1),
      upload_put_s: +median(results.map((r) => r.put_s)).toFixed(3),
      upload_complete_s: +median(results.map((r) => r.complete_s)).toFixed(3),
      upload_total_s: +total.toFixed(3),
      upload_mib_per_s: +(64 / total).toFixed(1),
      throughput_vs_baseline: +(base / total).toFixed(2),
      rss_growth_mib_max: +Math.max(...results.map((r) => r.rss_growth_mib)).toFixed(1),
      // The process's first large request grows RSS once by about as much as a bare Node
      // HTTP server hashing the same bytes does (allocator warm-up; it does not grow with size).
      first_upload_total_s: +first.total_s.toFixed(3),
      first_upload_rss_growth_mib: +first.rss_growth_mib.toFixed(1),
      targets: { throughput_vs_baseline: '>= 0.70', rss_growth_mib_max: '< 32' },
    };
    out.pass = out.throughput_vs_baseline >= 0.7 && out.rss_growth_mib_max < 32;
    process.stdout.write(JSON.stringify(out) + '\n');
    if (!out.pass) process.exitCode = 1;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ error: String(err && err.message ? err.message : err) }) + '\n');
  process.exit(1);
});
