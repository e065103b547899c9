import { AppError } from '@gensvc/kernel';

/**
 * Raised by `SubscriptionEngine.waitFor` when the read models have not applied a position
 * within the time given. The event at that position is stored (the command succeeded); only
 * its read models lag. A caller that can answer from the command's own result does so; one
 * that must read the read models lets it through: it is a `SERVICE_UNAVAILABLE` application
 * error (503 with Retry-After), and the client reads the resource again or repeats the request
 * with its idempotency key, which finds the stored result.
 */
export class ProjectionLagError extends AppError {
  constructor(
    readonly position: bigint,
    readonly projected: bigint,
    readonly timeoutMs: number,
  ) {
    super(
      'SERVICE_UNAVAILABLE',
      `the change is stored, but the read models have not caught up with it within ${timeoutMs} ms; read it again shortly`,
      { 'Retry-After': '1' },
    );
    this.name = 'ProjectionLagError';
  }
}

/**
 * For a caller that can answer from its command's own result: resolves true once `waiting`
 * (a `waitFor`) resolved, false when it rejected with `ProjectionLagError` (the write is
 * stored; the read models show it shortly). Any other failure passes.
 */
export async function caughtUp(waiting: Promise<void>): Promise<boolean> {
  try {
    await waiting;
    return true;
  } catch (err) {
    if (err instanceof ProjectionLagError) return false;
    throw err;
  }
}
