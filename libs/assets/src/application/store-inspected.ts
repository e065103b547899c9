import type { Readable } from 'node:stream';
import { AppError } from '@gensvc/kernel';
import { BlobStore } from '@gensvc/blob-store';
import { ContentInspector, type InspectionResult, type InspectionTarget } from './content-inspector';

/** The sender went away before the whole file arrived (nobody is left to answer). */
export class ReceiveInterrupted extends AppError {
  constructor() {
    super('VALIDATION_ERROR', 'body: the connection closed before the whole file arrived; send the whole file again');
    this.name = 'ReceiveInterrupted';
  }
}

export interface StoreOptions {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  /** Message of the timeout error, naming what was too slow. */
  readonly timeoutError?: () => Error;
  readonly contentType?: string;
  /**
   * The pace rule (UploadLimits.paceWindowMs / paceMinBytes): a receive that brings less than
   * `minBytes` in a window of `windowMs` is ended early, unless the rest of a file of known
   * size (`expectedBytes`) still arrives before the time limit at that window's pace.
   */
  readonly pace?: { readonly windowMs: number; readonly minBytes: number; readonly expectedBytes?: number; readonly error?: () => Error };
  /** Ends the receive with `yieldError` when it aborts (the slot was reserved for another account). */
  readonly yielded?: AbortSignal;
  readonly yieldError?: () => Error;
}

/** The bytes of a window, the bytes still to come, the time left: whether the receive is too slow to finish in time. */
export function tooSlow(inWindow: number, windowMs: number, minBytes: number, remaining: number | undefined, timeLeftMs: number): boolean {
  if (inWindow >= minBytes) return false;
  if (remaining === undefined || inWindow === 0) return true;
  return (remaining * windowMs) / inWindow > timeLeftMs;
}

/**
 * Streams `source` through the content checks into `key` of the blob store: SHA-256, size
 * and type are computed on the fly, never with the whole file in memory, and a file that
 * breaks a rule is never committed. On any failure the key is removed (best effort: the
 * storage cleanup retries) and the error is rethrown.
 */
export async function storeInspected(
  blobs: BlobStore,
  key: string,
  source: Readable,
  target: InspectionTarget,
  options: StoreOptions,
): Promise<InspectionResult> {
  const inspector = new ContentInspector(target, options.maxBytes);
  // The check may fail before the store starts reading (it creates directories first):
  // keep the first error, it is the one to report.
  let failure: Error | undefined;
  inspector.on('error', (err: Error) => (failure ??= err));
  const fail = (err: Error) => {
    if (!inspector.destroyed) inspector.destroy(err);
  };
  const timer = setTimeout(
    () => fail(options.timeoutError?.() ?? new AppError('VALIDATION_ERROR', `body: the file did not arrive within ${Math.round(options.timeoutMs / 1000)} seconds`)),
    options.timeoutMs,
  );
  const onError = (err: Error) => fail(err instanceof AppError ? err : new ReceiveInterrupted());
  const onClose = () => {
    const complete = (source as Readable & { complete?: boolean }).complete ?? source.readableEnded;
    if (!complete) fail(new ReceiveInterrupted());
  };
  // The pace: bytes counted as they arrive, looked at once per window until the source ends.
  const started = Date.now();
  let received = 0;
  let atWindowStart = 0;
  let arrived = false;
  const onData = (chunk: Buffer) => (received += chunk.length);
  const onEnd = () => (arrived = true);
  const pace = options.pace;
  const paceTimer = pace
    ? setInterval(() => {
        if (arrived) return;
        const remaining = pace.expectedBytes === undefined ? undefined : Math.max(0, pace.expectedBytes - received);
        if (remaining !== 0 && tooSlow(received - atWindowStart, pace.windowMs, pace.minBytes, remaining, options.timeoutMs - (Date.now() - started))) {
          fail(
            pace.error?.() ??
              new AppError(
                'VALIDATION_ERROR',
                `body: the file is arriving too slowly to finish within ${Math.round(options.timeoutMs / 1000)} seconds (less than ${Math.round(pace.minBytes / 1024)} KiB in ${Math.round(pace.windowMs / 1000)} seconds); send it again`,
              ),
          );
        }
        atWindowStart = received;
      }, pace.windowMs)
    : undefined;
  const onYield = () => fail(options.yieldError?.() ?? new AppError('UPLOAD_BUSY', 'the service gave this receive\'s place to another account; send the file again later'));
  if (options.yielded?.aborted) onYield();
  options.yielded?.addEventListener('abort', onYield, { once: true });
  source.on('error', onError);
  source.on('close', onClose);
  source.on('data', onData);
  source.on('end', onEnd);
  source.pipe(inspector);
  try {
    await blobs.put(key, inspector, { contentType: target.mode === 'declared' ? target.mime : undefined });
    return inspector.result();
  } catch (err) {
    await blobs.delete(key).catch(() => undefined);
    throw failure ?? err;
  } finally {
    clearTimeout(timer);
    clearInterval(paceTimer);
    options.yielded?.removeEventListener('abort', onYield);
    source.unpipe(inspector);
    source.off('error', onError);
    source.off('close', onClose);
    source.off('data', onData);
    source.off('end', onEnd);
  }
}
