/**
 * The gensvc HTTP API as the client CLI sees it: fetch only, no server code. Errors of the
 * API arrive as `ApiError` with the spec's error object.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The server could not be reached (or the connection broke) before an answer came. */
export class NetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetworkError';
  }
}

export interface RequestOptions {
  readonly query?: Record<string, string | number | undefined>;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Send no Authorization header (public routes, signed links, upload token routes). */
  readonly anonymous?: boolean;
  /** Retries after network errors; only for requests that are safe to repeat. */
  readonly retries?: number;
}

export interface ClientConfig {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly userAgent?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ApiClient {
  readonly baseUrl: string;

  constructor(private readonly config: ClientConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
  }

  get<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return this.json<T>('GET', path, { retries: 2, ...options });
  }

  post<T>(path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.json<T>('POST', path, { ...options, body });
  }

  delete<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return this.json<T>('DELETE', path, { retries: 2, ...options });
  }

  /** A JSON request; returns the parsed body of a 2xx answer, throws ApiError otherwise. */
  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, options);
    return (await res.json()) as T;
  }

  /** Sends a request and returns the 2xx response (body unread); throws ApiError otherwise. */
  async send(method: string, pathOrUrl: string, options: RequestOptions & { rawBody?: RequestInit['body']; duplex?: boolean } = {}): Promise<Response> {
    const url = new URL(/^https?:\/\//.test(pathOrUrl) ? pathOrUrl : this.baseUrl + pathOrUrl);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': this.config.userAgent ?? 'gensvc-cli', ...options.headers };
    if (!options.anonymous) {
      if (!this.config.apiKey) throw new ApiError(401, 'UNAUTHORIZED', 'an API key is needed: --api-key or GENSVC_API_KEY', undefined, undefined);
      headers.Authorization = `Bearer ${this.config.apiKey}`;
    }
    let body: RequestInit['body'] = options.rawBody;
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const attempts = 1 + (options.retries ?? 0);
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(url, { method, headers, body, ...(options.duplex ? { duplex: 'half' } : {}) } as RequestInit);
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        if (attempt < attempts) {
          await sleep(250 * attempt);
          continue;
        }
        throw new NetworkError(`${method} ${url.origin}${url.pathname}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
      }
      if (res.ok) return res;
      throw await toApiError(res);
    }
  }
}

async function toApiError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let parsed: { error?: { code?: string; message?: string; request_id?: string } } | undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const retryAfter = Number(res.headers.get('retry-after'));
  return new ApiError(
    res.status,
    parsed?.error?.code ?? `HTTP_${res.status}`,
    parsed?.error?.message ?? (text.slice(0, 200) || res.statusText),
    parsed?.error?.request_id ?? res.headers.get('x-request-id') ?? undefined,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}
