import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { SubscriptionEngine, createLogger } from '@gensvc/shared';
import { SqliteCheckpointStore, SqliteEventStore, SqliteReadStore } from '@gensvc/storage';
import { PinoNestLogger } from '../http/pino-nest-logger';
import { ALL_PROJECTIONS } from './projections';
import type { FromProjector, ProjectorData, ToProjector } from './projector-thread';

/**
 * The projection thread: applies every projection to DATA_DIR/read.db from DATA_DIR/events.db
 * (the same transactional loop a process runs in its event loop otherwise), and reports the
 * position it reached to the main thread, which follows it for read-your-writes.
 */
async function main(): Promise<void> {
  const port = parentPort!;
  const data = workerData as ProjectorData;
  Logger.overrideLogger(new PinoNestLogger(createLogger(data.logLevel).child({ thread: 'projections' })));
  const events = new SqliteEventStore(join(data.dataDir, 'events.db'));
  const readStore = SqliteReadStore.open(join(data.dataDir, 'read.db'), { cacheMb: data.readCacheMb });
  const checkpoints = SqliteCheckpointStore.open(join(data.dataDir, 'events.db'));
  const engine = new SubscriptionEngine(events, readStore, checkpoints, undefined as never);
  engine.use(ALL_PROJECTIONS.map((P) => new P()));
  const send = (msg: FromProjector) => port.postMessage(msg);
  // A report per projection batch: the waiting commands are answered as soon as it lands.
  engine.onProjected((position) => send({ type: 'projected', position: String(position) }));
  port.on('message', (msg: ToProjector) => {
    if (msg === 'wake') engine.wake();
    else if (msg === 'stop') {
      void (async () => {
        await engine.stop();
        await Promise.allSettled([events.close(), readStore.close(), checkpoints.close()]);
        port.close();
      })();
    }
  });
  await engine.start({ reactors: false });
  send({ type: 'ready', position: String(engine.projectedPosition()) });
}

main().catch((err: unknown) => {
  parentPort!.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) } satisfies FromProjector);
  process.exitCode = 1;
});
