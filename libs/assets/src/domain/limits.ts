/**
 * The upload and asset limits of the spec's Limits table. One object, injected where it is
 * needed, so tests may shorten the time limits (never the production defaults).
 */
export class UploadLimits {
  /** Largest file, bytes (64 MiB). */
  readonly maxFileBytes: number = 67_108_864;
  /** Validity of a prepared upload. */
  readonly uploadValidityMs: number = 15 * 60_000;
  /** Unfinished (prepared, uploading, uploaded) upload sessions per account. */
  readonly maxIncompleteSessions: number = 8;
  /** Receives (content writes, direct uploads, imports) running at once per account. */
  readonly accountConcurrentReceives: number = 2;
  /** Receives running at once across the service. */
  readonly platformConcurrentReceives: number = 4;
  /** Time limit of one receive. */
  readonly receiveTimeoutMs: number = 60_000;
  /**
   * The pace a receive must keep to finish within its time limit: at least `paceMinBytes` in
   * every window of `paceWindowMs` (64 KiB in 10 s), unless what is left of a file of known
   * size still arrives in time at that window's pace. A slower receive is ended early and
   * frees its slot.
   */
  readonly paceWindowMs: number = 10_000;
  readonly paceMinBytes: number = 65_536;
  /** How often a receive looks whether its slot was reserved for an account below its fair share. */
  readonly yieldCheckMs: number = 1_000;
  /** Validity of a signed asset link. */
  readonly linkValidityMs: number = 3_600_000;
  /** Overall time limit of one import download. */
  readonly importTimeoutMs: number = 60_000;
  /** Redirects an import follows (each target is checked again). */
  readonly importMaxRedirects: number = 3;
  /** Retry-After (seconds) sent with UPLOAD_BUSY / UPLOAD_LIMIT_REACHED. */
  readonly retryAfterSeconds: number = 5;
  /** How often the background job looks for expired uploads. */
  readonly expirySweepIntervalMs: number = 30_000;

  constructor(overrides: Partial<UploadLimits> = {}) {
    Object.assign(this, overrides);
  }
}
