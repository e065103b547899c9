import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { originOf } from '@gensvc/event-sourcing';
import { SqliteDatabase } from '@gensvc/storage';
import { ROOT } from './operations-cli';

export const API_ENTRY = join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');

/** A free loopback port (taken, then given back). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** What the process wrote on stderr so far (for failure messages). */
  stderr(): string;
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful), and wait until it is gone. */
  stop(): Promise<void>;
}

/**
 * Starts the built service (`node dist/apps/api/src/main.js`) as a process of its own on a
 * free port, with `dataDir` as its DATA_DIR; resolves when `/health/live` answers.
 */
export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [API_ENTRY], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', LOCAL_SUPPLIER_DELAY_MS: '50', ...env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${url}/health/live`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`server did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url, child, stderr: () => stderr, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}

/** The origin (`EventMetadata.origin`) of the events a server process writes. */
export const originOfServer = (server: ServerProcess): string => originOf(server.child.pid!);

/**
 * Reads the event store of `dataDir` (events.db, shared by the processes) as one more process
 * would: the newest position, a reactor's durable checkpoint (undefined before its first), and
 * which process wrote each event of the streams named `like` (an SQL LIKE pattern), in order.
 */
export function readEventStore(dataDir: string): {
  head(): bigint;
  reactorCheckpoint(reactor: string): bigint | undefined;
  writers(like: string): { stream: string; type: string; origin: string }[];
  close(): void;
} {
  const db = new SqliteDatabase(join(dataDir, 'events.db'), { bigInts: true });
  return {
    head: () => db.prepare<[], { position: bigint | null }>('SELECT MAX(position) AS position FROM events').get()?.position ?? -1n,
    reactorCheckpoint: (reactor) => db.prepare<[string], { position: bigint }>('SELECT position FROM checkpoints WHERE name = ?').get(`reactor:${reactor}`)?.position,
    writers: (like) =>
      db
        .prepare<[string], { stream: string; type: string; metadata: string }>('SELECT stream, type, metadata FROM events WHERE stream LIKE ? ORDER BY position')
        .all(like)
        .map((r) => ({ stream: r.stream, type: r.type, origin: (JSON.parse(r.metadata) as { origin: string }).origin })),
    close: () => db.close(),
  };
}
