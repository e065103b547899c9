/**
 * What every provider stand-in offers the tests. A stand-in is one provider's public API
 * documentation made executable on loopback: its paths, authentication, job statuses,
 * error bodies, 429s with `Retry-After`, cancel semantics, result links that expire and
 * (where the provider signs them) webhooks. Each provider's stand-in names the documentation
 * it follows at the top of its file. Tests script it through this interface, so one e2e
 * suite can drive every provider the same way.
 */
export type StandInRequestKind = 'probe' | 'submit' | 'status' | 'list' | 'result' | 'cancel' | 'download' | 'other';

/** A scripted answer for the next request of a kind, instead of the normal one. */
export type StandInFault =
  /** Answer this HTTP status with the provider's documented error body (and `Retry-After` when given, in seconds). */
  | { readonly status: number; readonly retryAfter?: number }
  /** Never answer (the client's timeout fires). */
  | 'hang'
  /** Create the job, then drop the connection without answering (an answer lost after sending; submit only). */
  | 'drop-after-create';

/** An output the stand-in serves when a job succeeds. */
export type StandInOutput =
  | { readonly kind: 'png' | 'jpeg' | 'webp' | 'mp4' | 'wav' | 'mp3'; readonly bytes?: number }
  /** Text output (a chat message, Replicate's list of pieces). */
  | { readonly kind: 'text'; readonly text: string }
  /** A file whose bytes are not what a generation model makes (HTML served as an image, say). */
  | { readonly kind: 'raw'; readonly body: Buffer; readonly contentType: string };

export interface StandInJob {
  /** The provider's id of the job. */
  readonly id: string;
  /** The provider model it was created for. */
  readonly model: string;
  /** The request body's model-specific part as the provider received it. */
  readonly input: unknown;
  /** The provider's own status word (`starting`, `IN_QUEUE`, `PENDING`, `queued`, …). */
  readonly status: string;
  /** The webhook address it was given, if any. */
  readonly webhook?: string;
}

export interface ProviderStandIn {
  /** The `base_url` a channel of this type is configured with. */
  readonly url: string;
  start(): Promise<this>;
  stop(): Promise<void>;
  /** Every request received: method, path (with query), the Authorization header. */
  readonly requests: readonly { readonly method: string; readonly path: string; readonly auth?: string }[];
  /** Jobs in creation order. */
  jobs(): StandInJob[];
  /** The next request of `kind` answers with `fault` (queued: several calls script several requests). */
  fault(kind: StandInRequestKind, fault: StandInFault): void;
  /** Provider model names the probe and the submit know (others: the provider's 404). */
  knownModels: Set<string>;
  /** Moves a job to the provider's running status. */
  run(id: string): void;
  /** Finishes a job successfully with these outputs (default: one output of the model's usual kind). */
  succeed(id: string, outputs?: readonly StandInOutput[]): void;
  /** Fails a job with the provider's documented error shape. */
  fail(id: string, message?: string): void;
  /** Result links expire this long after the job finished (the provider's documented lifetime by default). */
  linkLifetimeMs: number;
  /**
   * Webhooks (only stand-ins of providers that sign them): sends the job's current state to
   * its webhook address, signed with `secret`, and returns the HTTP status the service
   * answered. `tamper` breaks the signature; `timestampOffsetS` moves the signed timestamp
   * (an old message); `replay` re-sends the last message sent for this job exactly as it was
   * (same id, timestamp and signature).
   */
  sendWebhook?(id: string, secret: string, options?: { readonly tamper?: boolean; readonly timestampOffsetS?: number; readonly replay?: boolean }): Promise<number>;
}
