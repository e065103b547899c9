import { AppError, type ErrorCode } from '@gensvc/kernel';
import { type AppConfig } from '@gensvc/config';
import type { ReplayState } from '../application/replay/replay-progress';

/** No admin endpoint answers at the configured address (no server running, or ADMIN_TOKEN unset there). */
export class AdminUnreachableError extends Error {
  constructor(readonly url: string, cause: unknown) {
    super(`no admin endpoint answers at ${url}: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'AdminUnreachableError';
  }
}

/** Where a local process reaches the admin endpoint of a server bound to `host`. */
export function adminBaseUrl(config: Pick<AppConfig, 'host' | 'adminPort'>): string {
  let host = config.host;
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.adminPort}`;
}

/** Client of the running server's admin endpoint (used by `admin replay`). */
export class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  startReplay(projections?: string[]): Promise<ReplayState> {
    return this.call('POST', '/admin/replays', projections?.length ? { projections } : {});
  }

  getReplay(id: string): Promise<ReplayState> {
    return this.call('GET', `/admin/replays/${encodeURIComponent(id)}`);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.baseUrl + path, {
        method,
        headers: { Authorization: `Bearer ${this.token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      throw new AdminUnreachableError(this.baseUrl, (err as { cause?: unknown }).cause ?? err);
    }
    const json = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
    if (!res.ok) {
      const code = (json?.error?.code ?? 'INTERNAL') as ErrorCode;
      throw new AppError(code, `admin endpoint: ${json?.error?.message ?? `HTTP ${res.status}`}`);
    }
    return json as T;
  }
}
