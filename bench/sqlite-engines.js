#!/usr/bin/env node
/*
 * better-sqlite3 against Node's built-in `node:sqlite` on the embedded stores' own kinds of
 * statements: `node bench/sqlite-engines.js [--rows N] [--runs R]`.
 *
 * Each engine, on a fresh WAL file with the pragmas the stores use, runs
 *  - append:  N events in transactions of 50 rows (the event store's group commit), a
 *             prepared INSERT with a JSON payload;
 *  - read:    every stream of 10 events read back by a prepared SELECT (a command's load);
 *  - log:     the whole log read back in pages of 1,000 rows of every column, as the event
 *             store reads it for replays and catch-ups (better-sqlite3: objects with safe
 *             integers, as the store read them; node:sqlite: arrays with bigints, as it reads
 *             them now: objects cost node:sqlite about twice as much per row);
 *  - upsert:  N read-model documents written with INSERT ... ON CONFLICT DO UPDATE in
 *             transactions of 200 (a projection batch), then read back by id;
 *  - scan:    a JSON field filter over the documents (json_extract), as list queries do.
 * It prints one JSON object: per engine and operation, rows per second (median of R runs).
 * Results are recorded in docs/benchmarks.md.
 *
 * The stores run on `node:sqlite`; better-sqlite3 is no longer a dependency. When it is not
 * installed, that engine is skipped with a note; to compare, install it for the run only:
 *   npm install --no-save better-sqlite3 && node bench/sqlite-engines.js
 */
'use strict';
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, runs: { type: 'string', default: '5' } } });
const ROWS = Number(values.rows);
const RUNS = Number(values.runs);

/** better-sqlite3, when it is installed and loads (its native addon built for this Node); else why not. */
function loadBetterSqlite3() {
  try {
    return { Database: require('better-sqlite3') };
  } catch (err) {
    return { missing: err.code === 'MODULE_NOT_FOUND' ? 'not installed (npm install --no-save better-sqlite3 to compare)' : `does not load: ${err.message}` };
  }
}
const better = loadBetterSqlite3();

const engines = {
  'better-sqlite3': (file) => {
    const { Database } = better;
    const db = new Database(file);
    return {
      exec: (sql) => db.exec(sql),
      prepare: (sql, { log } = {}) => {
        const s = db.prepare(sql);
        if (log) s.safeIntegers(true);
        return { run: (...a) => s.run(...a), get: (...a) => s.get(...a), all: (...a) => s.all(...a) };
      },
      tx: (fn) => db.transaction(fn)(),
      close: () => db.close(),
    };
  },
  'node:sqlite': (file) => {
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(file);
    return {
      exec: (sql) => db.exec(sql),
      prepare: (sql, { log } = {}) => {
        const s = db.prepare(sql);
        if (log) {
          s.setReadBigInts(true);
          s.setReturnArrays(true);
        }
        return { run: (...a) => s.run(...a), get: (...a) => s.get(...a), all: (...a) => s.all(...a) };
      },
      tx: (fn) => {
        db.exec('BEGIN IMMEDIATE');
        try {
          fn();
          db.exec('COMMIT');
        } catch (err) {
          db.exec('ROLLBACK');
          throw err;
        }
      },
      close: () => db.close(),
    };
  },
};

function once(open) {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-sqlite-bench-'));
  const db = open(join(dir, 'bench.db'));
  try {
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
    db.exec('CREATE TABLE events (position INTEGER PRIMARY KEY, stream TEXT NOT NULL, revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (stream, revision))');
    db.exec('CREATE TABLE docs (id TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID');
    const out = {};
    const insert = db.prepare('INSERT INTO events (stream, revision, type, data) VALUES (?, ?, ?, ?)');
    const payload = (i) => JSON.stringify({ task_id: `task_${i}`, account_id: `acc_${i % 100}`, amount: '0.020000', at: new Date(1_700_000_000_000 + i).toISOString() });
    let t = process.hrtime.bigint();
    for (let i = 0; i < ROWS; i += 50) db.tx(() => { for (let j = i; j < Math.min(ROWS, i + 50); j++) insert.run(`task-${Math.floor(j / 10)}`, j % 10, 'TaskCreated', payload(j)); });
    out.append = ROWS / (Number(process.hrtime.bigint() - t) / 1e9);

    const read = db.prepare('SELECT revision, type, data FROM events WHERE stream = ? ORDER BY revision');
    t = process.hrtime.bigint();
    let n = 0;
    for (let s = 0; s < ROWS / 10; s++) n += read.all(`task-${s}`).length;
    out.read = n / (Number(process.hrtime.bigint() - t) / 1e9);

    const page = db.prepare('SELECT position, stream, revision, type, data FROM events WHERE position > ? ORDER BY position LIMIT 1000', { log: true });
    t = process.hrtime.bigint();
    n = 0;
    for (let rows = page.all(0); rows.length; rows = page.all(rows[rows.length - 1].position ?? rows[rows.length - 1][0])) n += rows.length;
    out.log = n / (Number(process.hrtime.bigint() - t) / 1e9);

    const upsert = db.prepare('INSERT INTO docs (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc');
    t = process.hrtime.bigint();
    for (let i = 0; i < ROWS; i += 200) db.tx(() => { for (let j = i; j < Math.min(ROWS, i + 200); j++) upsert.run(`task_${j}`, JSON.stringify({ _id: `task_${j}`, status: j % 3 ? 'succeeded' : 'running', account_id: `acc_${j % 100}`, title: `task ${j}` })); });
    out.upsert = ROWS / (Number(process.hrtime.bigint() - t) / 1e9);
    const byId = db.prepare('SELECT doc FROM docs WHERE id = ?');
    t = process.hrtime.bigint();
    for (let j = 0; j < ROWS; j++) JSON.parse(byId.get(`task_${j}`).doc);
    out.get = ROWS / (Number(process.hrtime.bigint() - t) / 1e9);

    const scan = db.prepare("SELECT doc FROM docs WHERE json_extract(doc, '$.account_id') = ? AND json_extract(doc, '$.status') = 'running'");
    t = process.hrtime.bigint();
    let rows = 0;
    for (let a = 0; a < 20; a++) rows += scan.all(`acc_${a}`).length;
    out.scan = (20 * ROWS) / (Number(process.hrtime.bigint() - t) / 1e9);
    if (!rows) throw new Error('the scan found nothing');
    return out;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = { node: process.version, rows: ROWS, runs: RUNS, rows_per_second: {} };
if (better.missing) {
  delete engines['better-sqlite3'];
  result.skipped = { 'better-sqlite3': better.missing };
  process.stderr.write(`better-sqlite3 skipped: ${better.missing}\n`);
}
for (const [name, open] of Object.entries(engines)) {
  const runs = Array.from({ length: RUNS }, () => once(open));
  result.rows_per_second[name] = Object.fromEntries(Object.keys(runs[0]).map((k) => [k, Math.round(median(runs.map((r) => r[k])))]));
}
const a = result.rows_per_second['better-sqlite3'];
const b = result.rows_per_second['node:sqlite'];
if (a) result.node_sqlite_over_better_sqlite3 = Object.fromEntries(Object.keys(a).map((k) => [k, Number((b[k] / a[k]).toFixed(2))]));
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
