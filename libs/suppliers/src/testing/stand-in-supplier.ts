import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signCallback } from '../infrastructure/http/callback-security';
import type { RemoteJobStatus } from '../infrastructure/http/http-supplier.channel';

export interface StandInJob {
  ref: string;
  submits: number;
  request: { model: string; capability: string; input: Record<string, unknown>; files: { name: string; mime: string; content_base64: string }[]; callback_url: string };
  state: RemoteJobStatus;
}

type Fault = { status: number } | 'hang';

/**
 * A stand-in external supplier speaking libs/suppliers/PROTOCOL.md on loopback, for
 * integration and e2e tests. Tests script it: fail the next requests of a kind, hang,
 * finish a job (with or without a signed callback), answer cancellations.
 */
export class StandInSupplier {
  readonly jobs = new Map<string, StandInJob>();
  readonly requests: { method: string; path: string; auth?: string }[] = [];
  readonly deletedVoices: string[] = [];
  /** Faults for the next requests, per kind. */
  readonly faults: Record<'submit' | 'status' | 'cancel', Fault[]> = { submit: [], status: [], cancel: [] };
  /** How the supplier answers a cancellation. */
  cancelAnswer: 'canceled' | 'refused' | 'pending' = 'canceled';
  /** Rewrites callback addresses (the service under test may listen elsewhere than its PUBLIC_BASE_URL). */
  callbackOrigin: string | undefined;
  private server: Server | undefined;
  private readonly hanging = new Set<ServerResponse>();

  constructor(private readonly secret: string) {}

  get url(): string {
    const a = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${a.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.route(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    const closed = new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server?.closeAllConnections();
    await closed;
  }

  count(method: string, pathPrefix: string): number {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix)).length;
  }

  /** Sets a job's state; with `callback`, delivers it signed to the job's callback address. */
  async finish(
    ref: string,
    state: RemoteJobStatus,
    callback?: { timestamp?: number; secret?: string; tamper?: boolean },
  ): Promise<{ status: number; body: string } | undefined> {
    const job = this.jobs.get(ref);
    if (!job) throw new Error(`stand-in supplier has no job ${ref}`);
    job.state = state;
    if (!callback) return undefined;
    return this.deliver(job, state, callback);
  }

  async deliver(job: StandInJob, state: RemoteJobStatus, opts: { timestamp?: number; secret?: string; tamper?: boolean } = {}): Promise<{ status: number; body: string }> {
    const body = JSON.stringify(state);
    const ts = opts.timestamp ?? Math.floor(Date.now() / 1000);
    const signature = signCallback(opts.secret ?? this.secret, ts, body);
    let url = job.request.callback_url;
    if (this.callbackOrigin) url = this.callbackOrigin + new URL(url).pathname;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gensvc-timestamp': String(ts), 'x-gensvc-signature': signature },
      body: opts.tamper ? body.replace('succeeded', 'failed') : body,
    });
    return { status: res.status, body: await res.text() };
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push({ method: req.method ?? '', path, auth: req.headers.authorization });
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    const fault = (kind: 'submit' | 'status' | 'cancel'): boolean => {
      const f = this.faults[kind].shift();
      if (!f) return false;
      if (f === 'hang') this.hanging.add(res);
      else send(f.status, { error: 'scripted fault' });
      return true;
    };
    let m: RegExpExecArray | null;
    if (req.method === 'PUT' && (m = /^\/jobs\/([^/]+)$/.exec(path))) {
      if (fault('submit')) return;
      const ref = decodeURIComponent(m[1]);
      const existing = this.jobs.get(ref);
      if (existing) {
        existing.submits++;
        return send(200, { id: ref, status: existing.state.status });
      }
      this.jobs.set(ref, { ref, submits: 1, request: JSON.parse(raw), state: { status: 'queued' } });
      return send(201, { id: ref, status: 'queued' });
    }
    if (req.method === 'GET' && (m = /^\/jobs\/([^/]+)$/.exec(path))) {
      if (fault('status')) return;
      const job = this.jobs.get(decodeURIComponent(m[1]));
      return job ? send(200, job.state) : send(404, { error: 'no such job' });
    }
    if (req.method === 'POST' && (m = /^\/jobs\/([^/]+)\/cancel$/.exec(path))) {
      if (fault('cancel')) return;
      const job = this.jobs.get(decodeURIComponent(m[1]));
      if (!job) return send(404, { error: 'no such job' });
      if (this.cancelAnswer === 'canceled') job.state = { status: 'canceled' };
      return send(200, { status: this.cancelAnswer });
    }
    if (req.method === 'DELETE' && (m = /^\/voices\/([^/]+)$/.exec(path))) {
      this.deletedVoices.push(decodeURIComponent(m[1]));
      return send(204);
    }
    send(404, { error: 'no such route' });
  }
}
