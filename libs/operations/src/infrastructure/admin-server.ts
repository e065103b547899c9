import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppConfig } from '@gensvc/config';
import { AppError, type ErrorCode } from '@gensvc/kernel';
import { ReadStore, RequestContexts, stripDoc } from '@gensvc/event-sourcing';
import { REPLAY_HISTORY, type ReplayHistoryDoc } from '../application/replay/replay-history.projection';
import { ReplayService } from '../application/replay/replay.service';
import { Metrics } from './metrics';

/** Options of the admin HTTP server; only the API process serves it. */
export const ADMIN_SERVER_OPTIONS = Symbol('ADMIN_SERVER_OPTIONS');
export interface AdminServerOptions {
  readonly serve: boolean;
  /** The HTTP status of an error code: the API's table (errors in the libraries carry a code only). */
  readonly errorStatus: (code: ErrorCode) => number;
}

const MAX_BODY = 64 * 1024;
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * The internal admin endpoint: its own HTTP server on `ADMIN_PORT`, bound to `HOST`, started
 * only when `ADMIN_TOKEN` is set, every request authenticated with `Authorization: Bearer
 * <ADMIN_TOKEN>`. Never mounted on the public port.
 *
 * - `GET  /metrics`                Prometheus text format
 * - `GET  /admin/projections`      projections with their checkpoints
 * - `POST /admin/replays`          start a replay: `{"projections": ["name", ...]}` (optional) → 202 state
 * - `GET  /admin/replays/{id}`     progress of a replay (the state object)
 * - `GET  /admin/replays`          the replay history (completed replays, newest first)
 */
@Injectable()
export class AdminServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AdminServer');
  private server: Server | undefined;

  constructor(
    @Inject(ADMIN_SERVER_OPTIONS) private readonly options: AdminServerOptions,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(ReadStore) private readonly readStore: ReadStore,
    private readonly replays: ReplayService,
    private readonly metrics: Metrics,
  ) {}

  /** The bound address while serving (tests use port 0). */
  address(): AddressInfo | undefined {
    const a = this.server?.address();
    return a && typeof a === 'object' ? a : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const token = this.config.adminToken;
    if (!this.options.serve || !token) return;
    if (token.length < 16) throw new Error('configuration: ADMIN_TOKEN must be at least 16 characters');
    if (this.config.adminPort !== 0 && this.config.adminPort === this.config.port) {
      throw new Error('configuration: ADMIN_PORT must differ from PORT (the admin endpoint never shares the public port)');
    }
    const expected = digest(`Bearer ${token}`);
    const server = createServer((req, res) => {
      const requestId = `adm_${randomUUID().replace(/-/g, '')}`;
      res.setHeader('X-Request-Id', requestId);
      res.setHeader('Cache-Control', 'no-store');
      RequestContexts.run({ requestId, actor: 'admin' }, () => {
        this.handle(req, res, expected).catch((err: unknown) => this.fail(res, requestId, err));
      });
    });
    server.requestTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.adminPort, this.config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.logger.log(`admin endpoint listening on ${this.config.host}:${this.address()?.port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse, expected: Buffer): Promise<void> {
    const sent = digest(req.headers.authorization ?? '');
    if (!timingSafeEqual(sent, expected)) throw new AppError('UNAUTHORIZED', 'the admin endpoint needs Authorization: Bearer <ADMIN_TOKEN>');
    const url = new URL(req.url ?? '/', 'http://admin');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';

    if (path === '/metrics' && method === 'GET') {
      const body = await this.metrics.render();
      res.writeHead(200, { 'Content-Type': this.metrics.contentType });
      res.end(body);
      return;
    }
    if (path === '/admin/projections' && method === 'GET') {
      const checkpoints = await this.readStore.collection<{ _id: string; position: string; generation?: string | null }>('projection_checkpoints').find({});
      const data = this.replays.projectionNames().map((name) => {
        const cp = checkpoints.find((c) => c._id === name);
        return { name, position: cp ? cp.position : null, generation: cp?.generation ?? null };
      });
      return this.json(res, 200, { data });
    }
    if (path === '/admin/replays' && method === 'POST') {
      const body = await readJson(req);
      const projections = parseProjections(body);
      return this.json(res, 202, this.replays.start({ projections }));
    }
    if (path === '/admin/replays' && method === 'GET') {
      const docs = await this.readStore.collection<ReplayHistoryDoc & { _id: string; _pos: number }>(REPLAY_HISTORY).find({}, { sort: { completed_at: -1 }, limit: 100 });
      return this.json(res, 200, { data: docs.map(stripDoc), running: this.replays.current() ?? null });
    }
    const one = /^\/admin\/replays\/([A-Za-z0-9_]{1,100})$/.exec(path);
    if (one && method === 'GET') {
      const state = this.replays.get(one[1]);
      if (state) return this.json(res, 200, state);
      const doc = await this.readStore.collection<ReplayHistoryDoc & { _id: string; _pos: number }>(REPLAY_HISTORY).findOne({ _id: one[1] });
      if (doc) return this.json(res, 200, stripDoc(doc));
      throw new AppError('NOT_FOUND', `replay ${one[1]} not found`);
    }
    throw new AppError('NOT_FOUND', 'no such admin route');
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  private fail(res: ServerResponse, requestId: string, err: unknown): void {
    const app = err instanceof AppError ? err : undefined;
    if (!app) this.logger.error({ err }, 'admin request failed');
    const code = app?.code ?? 'INTERNAL';
    if (res.headersSent) return void res.destroy();
    if (code === 'UNAUTHORIZED') res.setHeader('WWW-Authenticate', 'Bearer realm="gensvc-admin"');
    this.json(res, this.options.errorStatus(code), { error: { code, message: app?.message ?? 'internal error', request_id: requestId } });
  }
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new AppError('PAYLOAD_TOO_LARGE', 'request body is too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (!text) return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new AppError('VALIDATION_ERROR', 'request body is not valid JSON'));
      }
    });
  });
}

function parseProjections(body: unknown): string[] | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError('VALIDATION_ERROR', 'body must be a JSON object');
  const extra = Object.keys(body).filter((k) => k !== 'projections');
  if (extra.length) throw new AppError('VALIDATION_ERROR', `${extra[0]}: unknown field`);
  const p = (body as { projections?: unknown }).projections;
  if (p === undefined || p === null) return undefined;
  if (!Array.isArray(p) || p.length > 100 || !p.every((n) => typeof n === 'string' && n.length >= 1 && n.length <= 200)) {
    throw new AppError('VALIDATION_ERROR', 'projections: must be an array of projection names');
  }
  return p as string[];
}
