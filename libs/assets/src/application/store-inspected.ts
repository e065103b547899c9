import type { Readable } from 'node:stream';
import { AppError, BlobStore } from '@gensvc/shared';
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
  source.on('error', onError);
  source.on('close', onClose);
  source.pipe(inspector);
  try {
    await blobs.put(key, inspector, { contentType: target.mode === 'declared' ? target.mime : undefined });
    return inspector.result();
  } catch (err) {
    await blobs.delete(key).catch(() => undefined);
    throw failure ?? err;
  } finally {
    clearTimeout(timer);
    source.unpipe(inspector);
    source.off('error', onError);
    source.off('close', onClose);
  }
}
