import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import type { StandInFile } from './output-files';
import type { StandInFault, StandInRequestKind } from './provider-stand-in';

/** One received request, as a route handler sees it. */
export interface StandInRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/** What the next request of a kind does instead of its normal answer. */
export type FaultOutcome = 'answered' | 'drop-after-create' | null;

/**
 * The loopback HTTP part every provider stand-in shares: the server on 127.0.0.1 (port 0),
 * the request log, scripted faults per request kind, hanging answers (ended at `stop`), and
 * output files served from the stand-in's own origin until their link expires.
 */
export abstract class HttpStandIn {
  /** Every request received, with when it arrived (ms since the epoch). */
  readonly requests: { readonly method: string; readonly path: string; readonly auth?: string; readonly at: number }[] = [];
  knownModels = new Set<string>();
  /** The clock result links (and data retention) go by: tests move it instead of waiting. */
  now: () => number = () => Date.now();
  abstract linkLifetimeMs: number;
  private server: Server | undefined;
  private readonly hanging = new Set<ServerResponse>();
  private readonly faults = new Map<StandInRequestKind, StandInFault[]>();
  private readonly files = new Map<string, { readonly file: StandInFile; readonly expiresAt: () => number }>();

  get url(): string {
    if (!this.server) throw new Error('the stand-in is not started');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.receive(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    const server = this.server;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  fault(kind: StandInRequestKind, fault: StandInFault): void {
    const queue = this.faults.get(kind) ?? [];
    queue.push(fault);
    this.faults.set(kind, queue);
  }

  /** Answers one request that is not a download (taking the faults of its kind with `faultFor`). */
  protected abstract route(req: StandInRequest, res: ServerResponse): Promise<void> | void;

  /** The provider's documented error body for an HTTP status. */
  protected abstract errorBody(status: number, retryAfter?: number): unknown;

  /**
   * Applies the next scripted fault of a kind: answers it (an error status, or hangs) and
   * returns `answered`; returns `drop-after-create` for the caller to act on (then `drop`);
   * null when none is scripted.
   */
  protected faultFor(kind: StandInRequestKind, res: ServerResponse): FaultOutcome {
    const fault = this.faults.get(kind)?.shift();
    if (fault === undefined) return null;
    if (fault === 'hang') {
      this.hanging.add(res);
      return 'answered';
    }
    if (fault === 'drop-after-create') {
      if (kind === 'submit') return 'drop-after-create';
      this.drop(res);
      return 'answered';
    }
    this.json(res, fault.status, this.errorBody(fault.status, fault.retryAfter), fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {});
    return 'answered';
  }

  /** Ends the connection without an answer. */
  protected drop(res: ServerResponse): void {
    res.socket?.destroy();
  }

  protected json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
    res.end(text);
  }

  /** Publishes a file at a path of this origin; it answers 404 once `expiresAt()` has passed. */
  protected publish(path: string, file: StandInFile, expiresAt: () => number): string {
    this.files.set(path, { file, expiresAt });
    return `${this.url}${path}`;
  }

  /** Serves a published file (a download); false when the path is not one. */
  protected async serveFile(req: StandInRequest, res: ServerResponse): Promise<boolean> {
    const held = this.files.get(req.path);
    if (!held || req.method !== 'GET') return false;
    if (this.faultFor('download', res)) return true;
    if (this.now() >= held.expiresAt()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found');
      return true;
    }
    res.writeHead(200, { 'content-type': held.file.contentType, 'content-length': String(held.file.size) });
    await pipeline(held.file.open(), res).catch(() => undefined); // the client may stop reading
    return true;
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://stand-in');
    this.requests.push({ method: req.method ?? '', path: url.pathname + url.search, at: Date.now(), ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
    const request: StandInRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
    try {
      if (await this.serveFile(request, res)) return;
      await this.route(request, res);
    } catch (err) {
      if (!res.headersSent) this.json(res, 500, this.errorBody(500));
      else res.destroy(err as Error);
    }
  }
}

/** The request body as a JSON object, or undefined. */
export function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
