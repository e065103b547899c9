import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedMessage {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A real webhook receiver on loopback: records every request and answers with the status the
 * test chose for its path (default 204).
 */
export class WebhookReceiver {
  readonly received: ReceivedMessage[] = [];
  private readonly answers = new Map<string, number[]>();
  private server!: Server;
  private waiters: (() => void)[] = [];

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const queue = this.answers.get(path);
        const status = queue && queue.length > 1 ? queue.shift()! : (queue?.[0] ?? 204);
        res.statusCode = status;
        res.end(status === 204 ? undefined : 'x'.repeat(100_000));
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers on `path` with these statuses in turn; the last one stays. */
  answer(path: string, ...statuses: number[]): void {
    this.answers.set(path, statuses);
  }

  on(path: string): ReceivedMessage[] {
    return this.received.filter((m) => m.path === path);
  }

  /** Waits until `check` holds for the received requests (at most `ms`). */
  async until<T>(check: (received: ReceivedMessage[]) => T | undefined | false, ms = 20_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const got = check(this.received);
      if (got) return got;
      if (Date.now() > deadline) throw new Error(`receiver: condition not met; got ${this.received.map((m) => `${m.path} ${m.body.slice(0, 60)}`).join(' | ')}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
