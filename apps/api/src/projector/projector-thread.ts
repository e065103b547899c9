import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppConfig, EventStore, SubscriptionEngine } from '@gensvc/shared';

/** What the projection thread is started with. */
export interface ProjectorData {
  dataDir: string;
  readCacheMb: number;
  logLevel: string;
}
export type ToProjector = 'wake' | 'stop';
export type FromProjector = { type: 'ready' | 'projected'; position: string } | { type: 'failed'; message: string };

/** Whether this configuration runs the projections in a thread of their own (the embedded stores only). */
export const projectsInThread = (config: AppConfig): boolean => config.projections === 'thread' && !config.mongoUrl && !config.eventStoreUrl;

const RESTART_MS = 1000;
const STOP_MS = 10_000;

/**
 * Runs the projections of this process in a worker thread (PROJECTIONS=thread, the default on
 * the embedded stores), so the event loop that answers requests does not also write the read
 * models. The engine of the main thread follows: the thread reports each position it reached
 * (`advance`), and is woken after each append of this process. A thread that dies is started
 * again; meanwhile the engine follows the stored checkpoints, as it does for another process.
 */
@Injectable()
export class ProjectorThread implements OnApplicationShutdown {
  private readonly logger = new Logger('Projections');
  private worker: Worker | undefined;
  private stopping = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly engine: SubscriptionEngine,
    private readonly events: EventStore,
  ) {}

  /** Starts the thread; resolves once its projections caught up with the event store. */
  async start(): Promise<void> {
    if (extname(__filename) === '.ts') {
      throw new Error('PROJECTIONS=thread runs from the built app (npm run build); from the TypeScript sources set PROJECTIONS=inline');
    }
    await this.spawn();
    // One message per commit of this process (a commit holds all appends of its batch).
    this.unsubscribe = this.events.onAppended(() => this.worker?.postMessage('wake' satisfies ToProjector));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop' satisfies ToProjector);
    const timer = setTimeout(() => void worker.terminate(), STOP_MS);
    await exited;
    clearTimeout(timer);
  }

  private spawn(): Promise<void> {
    const data: ProjectorData = { dataDir: this.config.dataDir, readCacheMb: this.config.readCacheMb, logLevel: this.config.logLevel };
    const worker = new Worker(join(__dirname, 'projector.main.js'), { workerData: data });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on('message', (msg: FromProjector) => {
        if (msg.type === 'projected' || msg.type === 'ready') this.engine.advance(BigInt(msg.position));
        if (msg.type === 'ready') {
          ready = true;
          resolve();
        } else if (msg.type === 'failed') {
          this.logger.error(`the projection thread failed: ${msg.message}`);
          if (!ready) reject(new Error(`the projection thread failed to start: ${msg.message}`));
        }
      });
      worker.on('error', (err) => {
        this.logger.error({ err }, 'the projection thread failed');
        if (!ready) reject(err);
      });
      worker.on('exit', (code) => {
        if (this.worker === worker) this.worker = undefined;
        if (!ready) return reject(new Error(`the projection thread exited (${code}) before it caught up`));
        if (this.stopping) return;
        this.logger.error(`the projection thread exited (${code}); starting it again in ${RESTART_MS} ms`);
        setTimeout(() => {
          if (!this.stopping) this.spawn().catch((err: unknown) => this.logger.error({ err }, 'the projection thread did not start again'));
        }, RESTART_MS).unref();
      });
    });
  }
}
