#!/usr/bin/env node
/*
 * Replay speed on the embedded stores: `node bench/replay.js [--events N] [--runs R] [--in-server]`.
 *
 * Fills a fresh SQLite event store (temporary DATA_DIR) with N events shaped like the
 * service's own (task lifecycles, wallet movements, API keys), times the live projection loop
 * filling an empty read.db (as a first start after an upgrade does), then runs the admin
 * replay (ReplayService: on the embedded SQLite read store, straight into fresh collections
 * one transaction per batch, then the atomic switch) R times over three projections of the
 * kinds the contexts use, and prints one JSON object with the events per second (wall and
 * CPU) of each. The replays run as in the admin CLI (no projection loop in the process:
 * indexes built after the rows); `--in-server` keeps the loop running, as a replay the server
 * makes (indexes kept row by row).
 *
 * Uses the build output (runs `nest build api` first when it is missing or older than the
 * sources). Results are recorded in docs/benchmarks.md.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readdirSync, rmSync, statSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');

const root = join(__dirname, '..');
const dist = (...p) => join(root, 'dist', ...p);

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (e.name.endsWith('.ts')) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

const entry = dist('libs', 'operations', 'src', 'index.js');
if (!existsSync(entry) || statSync(entry).mtimeMs < Math.max(newest(join(root, 'libs', 'event-sourcing', 'src')), newest(join(root, 'libs', 'operations', 'src')))) {
  process.stderr.write('building...\n');
  spawnSync(process.execPath, [join(root, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build', 'api'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (!existsSync(entry)) throw new Error('the build did not produce ' + entry);
}

require('reflect-metadata');
const { Injectable, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const eventSourcing = require(dist('libs', 'event-sourcing', 'src'));
const { loadConfig } = require(dist('libs', 'config', 'src'));
const storageLib = require(dist('libs', 'storage', 'src'));
const { OperationsModule, ReplayService } = require(entry);

const { values: args } = parseArgs({
  options: { events: { type: 'string', default: '200000' }, runs: { type: 'string', default: '3' }, 'no-start': { type: 'boolean', default: false }, 'in-server': { type: 'boolean', default: false } },
});
const N = Number(args.events);
const RUNS = Number(args.runs);

/** Registers a projection object as a discoverable Nest provider. */
function provider(projection) {
  class P {
    constructor() {
      Object.assign(this, projection);
    }
  }
  Object.defineProperty(P, 'name', { value: `Bench_${projection.name.replace(/\W/g, '_')}` });
  Injectable()(P);
  eventSourcing.AsProjection()(P);
  return P;
}

// 1. One document per task, folded from its lifecycle (like the task list and task reads).
const tasks = eventSourcing.documentProjection({
  name: 'bench.tasks',
  collection: 'bench_tasks',
  handles: ['TaskCreated', 'TaskStarted', 'TaskSucceeded', 'TaskSettled'],
  documentId: (e) => e.data.taskId,
  indexes: [{ keys: { account_id: 1, created_at: -1 } }],
  evolve(doc, e) {
    switch (e.type) {
      case 'TaskCreated':
        return { account_id: e.data.accountId, model: e.data.model, status: 'queued', max_amount: e.data.maxAmount, charged_amount: null, created_at: e.metadata.occurredAt, updated_at: e.metadata.occurredAt };
      case 'TaskStarted':
        return doc && { ...doc, status: 'running', updated_at: e.metadata.occurredAt };
      case 'TaskSucceeded':
        return doc && { ...doc, status: 'succeeded', output: { asset_ids: [e.data.assetId] }, updated_at: e.metadata.occurredAt };
      case 'TaskSettled':
        return doc && { ...doc, settlement_status: 'settled', charged_amount: e.data.charged };
      default:
        return doc;
    }
  },
});

// 2. One document per wallet, folded from its movements (like the wallet read).
const wallets = eventSourcing.documentProjection({
  name: 'bench.wallets',
  collection: 'bench_wallets',
  handles: ['WalletCredited', 'FundsReserved', 'ReservationSettled'],
  documentId: (e) => e.data.accountId,
  evolve(doc, e) {
    const w = doc ?? { available: 0, reserved: 0, spent: 0 };
    switch (e.type) {
      case 'WalletCredited':
        return { ...w, available: w.available + e.data.micros };
      case 'FundsReserved':
        return { ...w, available: w.available - e.data.micros, reserved: w.reserved + e.data.micros };
      case 'ReservationSettled':
        return { ...w, reserved: w.reserved - e.data.reserved, available: w.available + e.data.reserved - e.data.charged, spent: w.spent + e.data.charged };
      default:
        return w;
    }
  },
});

// 3. Per-model usage counters with update operators (like billing summaries), position-guarded.
const usage = {
  name: 'bench.usage',
  collections: ['bench_usage'],
  handles: ['TaskSettled'],
  async apply(e, target) {
    const c = target.collection('bench_usage');
    const pos = Number(e.position);
    const r = await c.updateOne({ _id: e.data.model, _pos: { $lt: pos } }, { $inc: { tasks: 1, charged: e.data.chargedMicros }, $set: { _pos: pos } });
    if (!r.matched && !(await c.findOne({ _id: e.data.model }))) await c.insertOne({ _id: e.data.model, tasks: 1, charged: e.data.chargedMicros, _pos: pos });
  },
};

/** Writes the events through a store of its own: commits on this thread, without fsync (filling only). */
async function fill(file) {
  const events = new storageLib.SqliteEventStore(file, undefined, { commits: 'inline', synchronous: 'OFF' });
  const models = ['text-mini', 'image-studio-v2', 'speech-v1', 'voice-clone-std'];
  let n = 0;
  let task = 0;
  const accounts = 500;
  for (let a = 0; a < accounts && n < N; a++) {
    await events.appendToStream(`wallet-acc_${a}`, [{ type: 'WalletCredited', data: { accountId: `acc_${a}`, micros: 100_000_000 } }]);
    n++;
  }
  while (n < N) {
    const taskId = `task_${task}`;
    const accountId = `acc_${task % accounts}`;
    const model = models[task % models.length];
    task++;
    await events.appendToStream(`task-${taskId}`, [
      { type: 'TaskCreated', data: { taskId, accountId, model, maxAmount: '0.200000' } },
      { type: 'TaskStarted', data: { taskId } },
      { type: 'TaskSucceeded', data: { taskId, assetId: `ast_${task}` } },
      { type: 'TaskSettled', data: { taskId, model, charged: '0.200000', chargedMicros: 200_000 } },
    ]);
    await events.appendToStream(`wallet-${accountId}`, [
      { type: 'FundsReserved', data: { accountId, micros: 200_000 } },
      { type: 'ReservationSettled', data: { accountId, reserved: 200_000, charged: 200_000 } },
    ]);
    n += 6;
  }
  const head = Number(await events.headPosition());
  await events.close();
  return head;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'gensvc-bench-replay-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    class Bench {}
    const storage = storageLib.StorageModule.forRoot(config);
    Module({ imports: [storage, OperationsModule.register({ imports: [storage] })], providers: [provider(tasks), provider(wallets), provider(usage)] })(Bench);
    const app = await NestFactory.createApplicationContext(Bench, { logger: false });
    const t0 = Date.now();
    const total = await fill(join(dataDir, 'events.db'));
    process.stderr.write(`stored ${total} events in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);

    const engine = app.get(eventSourcing.SubscriptionEngine);
    const s0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    if (!args['no-start']) await engine.start({ reactors: false });
    const startSeconds = Number(process.hrtime.bigint() - s0) / 1e9;
    const startCpu = process.cpuUsage(c0);
    const startCpuSeconds = (startCpu.user + startCpu.system) / 1e6;
    if (!args['in-server']) await engine.stop();

    const replays = app.get(ReplayService);
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const cpu0 = process.cpuUsage();
      const r = await replays.run({ record: false });
      const cpu = process.cpuUsage(cpu0);
      const cpuSeconds = (cpu.user + cpu.system) / 1e6;
      runs.push({
        events: r.events,
        seconds: r.seconds,
        events_per_second: Math.round(r.events / r.seconds),
        cpu_seconds: Math.round(cpuSeconds * 1000) / 1000,
        events_per_cpu_second: Math.round(r.events / cpuSeconds),
      });
      process.stderr.write(`run ${i + 1}: ${r.events} events in ${r.seconds} s = ${Math.round(r.events / r.seconds)} events/s (${Math.round(r.events / cpuSeconds)} per CPU second)\n`);
    }
    const rates = runs.map((r) => r.events_per_second).sort((a, b) => a - b);
    const docs = {};
    for (const c of ['bench_tasks', 'bench_wallets', 'bench_usage']) docs[c] = await app.get(eventSourcing.ReadStore).collection(c).count({});
    await app.close();
    process.stdout.write(
      JSON.stringify({
        events: total,
        documents: docs,
        replay: { runs, median_events_per_second: rates[Math.floor(rates.length / 2)], best_events_per_second: rates[rates.length - 1] },
        replay_mode: args['in-server'] ? 'in the server (projection loop running, indexes kept row by row)' : 'as the admin CLI (indexes built after the rows)',
        server_start_catch_up: args['no-start']
          ? null
          : {
              seconds: Math.round(startSeconds * 1000) / 1000,
              events_per_second: Math.round(total / startSeconds),
              cpu_seconds: Math.round(startCpuSeconds * 1000) / 1000,
              events_per_cpu_second: Math.round(total / startCpuSeconds),
            },
        load_average: require('node:os').loadavg().map((l) => Math.round(l * 100) / 100),
        node: process.version,
      }) + '\n',
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  process.exit(1);
});
