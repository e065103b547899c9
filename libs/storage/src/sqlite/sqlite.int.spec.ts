import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SqliteDatabase, isBusy, sqliteCode } from './sqlite';

describe('SqliteDatabase', () => {
  let dir: string;
  const open: SqliteDatabase[] = [];
  const connect = (options?: ConstructorParameters<typeof SqliteDatabase>[1]) => {
    const db = new SqliteDatabase(join(dir, 'test.db'), { pragmas: ['journal_mode = WAL'], ...options });
    open.push(db);
    return db;
  };
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gensvc-sqlite-'))));
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rows = (db: SqliteDatabase) => db.prepare<[], { v: string }>('SELECT v FROM t ORDER BY v').all().map((r) => r.v);

  it('commits a transaction that returns and rolls back one that throws', () => {
    const db = connect();
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = db.prepare<[string]>('INSERT INTO t (v) VALUES (?)');
    expect(db.transaction(() => (insert.run('a'), 'done'))).toBe('done');
    expect(() =>
      db.transaction(() => {
        insert.run('b');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(db.inTransaction).toBe(false);
    expect(rows(db)).toEqual(['a']);
    expect(rows(connect())).toEqual(['a']);
  });

  it('runs a nested transaction as a savepoint: a failing one is undone alone, the outer one commits', () => {
    const db = connect();
    db.exec('CREATE TABLE t (v TEXT UNIQUE)');
    const insert = db.prepare<[string]>('INSERT INTO t (v) VALUES (?)');
    const outcomes: string[] = [];
    db.transaction(() => {
      for (const batch of [['a', 'b'], ['c', 'a'], ['d']]) {
        try {
          db.transaction(() => batch.forEach((v) => insert.run(v)));
          outcomes.push('ok');
        } catch (err) {
          outcomes.push(sqliteCode(err)!);
        }
      }
    });
    expect(outcomes).toEqual(['ok', 'SQLITE_CONSTRAINT_UNIQUE', 'ok']);
    expect(rows(connect())).toEqual(['a', 'b', 'd']);
  });

  it('refuses a transaction function that returns a promise, and rolls it back', () => {
    const db = connect();
    db.exec('CREATE TABLE t (v TEXT)');
    expect(() => db.transaction(() => (db.exec("INSERT INTO t (v) VALUES ('a')"), Promise.resolve()))).toThrow(/promise/);
    expect(rows(db)).toEqual([]);
  });

  it('reads integers as bigint when asked, numbers otherwise; binds named parameters by bare keys', () => {
    const big = connect({ bigInts: true });
    big.exec('CREATE TABLE n (id INTEGER PRIMARY KEY, x INTEGER)');
    const put = big.prepare<[{ x: bigint }]>('INSERT INTO n (x) VALUES (@x)');
    expect(put.run({ x: 2n ** 62n }).lastInsertRowid).toBe(1n);
    expect(big.prepare('SELECT id, x FROM n').get()).toEqual({ id: 1n, x: 2n ** 62n });
    expect(connect().prepare('SELECT id FROM n').get()).toEqual({ id: 1 });
    expect(() => connect().prepare('SELECT x FROM n').get()).toThrow();
  });

  it('names the result codes of SQLite errors', () => {
    const db = connect();
    db.exec('CREATE TABLE k (id TEXT PRIMARY KEY, v TEXT UNIQUE)');
    db.exec("INSERT INTO k VALUES ('a', 'x')");
    const codeOf = (sql: string) => {
      try {
        db.exec(sql);
      } catch (err) {
        return sqliteCode(err);
      }
    };
    expect(codeOf("INSERT INTO k VALUES ('a', 'y')")).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(codeOf("INSERT INTO k VALUES ('b', 'x')")).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(codeOf('SELECT nothing FROM k')).toBe('SQLITE_ERROR');
    expect(sqliteCode(new Error('not SQLite'))).toBeUndefined();
  });

  it('fails at once with SQLITE_BUSY when another connection writes and the timeout is 0', () => {
    const writer = connect();
    writer.exec('CREATE TABLE t (v TEXT)');
    writer.begin();
    const other = connect({ busyTimeoutMs: 0 });
    let err: unknown;
    try {
      other.begin();
    } catch (e) {
      err = e;
    }
    expect(isBusy(err)).toBe(true);
    writer.rollback();
    other.begin();
    other.commit();
  });

  it('sets the busy timeout before the pragmas: an open waits for a lock another thread holds', async () => {
    const file = join(dir, 'test.db');
    // Another thread holds an exclusive lock on a file not yet in WAL mode, and gives it up a
    // little later: switching that file to WAL at open must wait for it, not fail.
    const holder = new Worker(
      `const { DatabaseSync } = require('node:sqlite');
       const { parentPort, workerData } = require('node:worker_threads');
       const db = new DatabaseSync(workerData);
       db.exec('CREATE TABLE t (v TEXT); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)');
       parentPort.postMessage('locked');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`,
      { eval: true, workerData: file },
    );
    await new Promise((resolve) => holder.once('message', resolve));
    const db = connect();
    expect(db.prepare<[], { journal_mode: string }>('PRAGMA journal_mode').get()!.journal_mode).toBe('wal');
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    await new Promise((resolve) => holder.once('exit', resolve));
  });
});
