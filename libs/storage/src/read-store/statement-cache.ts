import type { SqliteDatabase, Statement } from '../sqlite/sqlite';

const STATEMENT_CACHE = 500;

/** Prepared statements of one connection by their SQL text (at most 500; all dropped when full). */
export class StatementCache {
  private readonly statements = new Map<string, Statement<unknown[], unknown>>();

  constructor(private readonly db: SqliteDatabase) {}

  /** A cached prepared statement. */
  get(sql: string): Statement<unknown[], unknown> {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.clear();
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  run(sql: string, ...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.get(sql).run(...params);
  }

  /** Drops the statements whose SQL names `table` (after it was dropped). */
  forget(table: string): void {
    for (const sql of [...this.statements.keys()]) if (sql.includes(table)) this.statements.delete(sql);
  }
}
