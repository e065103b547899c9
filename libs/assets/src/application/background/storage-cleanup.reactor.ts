import { Injectable, Logger } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { BlobStore } from '@gensvc/blob-store';
import { type RecordedEvent } from '@gensvc/kernel';
import type { AssetEvent } from '../../domain/asset';
import type { UploadEvent } from '../../domain/upload';

/** The objects an event makes unreferenced (and so due for removal from storage). */
export function objectsFreedBy(event: { type: string; data: unknown }): string[] {
  const e = event as UploadEvent | AssetEvent;
  switch (e.type) {
    case 'UploadReceiveFailed':
      return [e.data.blob_key];
    case 'UploadReceived':
      return e.data.superseded_blob_key ? [e.data.superseded_blob_key] : [];
    case 'UploadContentMismatched':
      return [e.data.blob_key];
    case 'UploadExpired':
      return [...e.data.blob_keys];
    case 'AssetDeleted':
      return [e.data.blob_key];
    default:
      return [];
  }
}

/**
 * Removes file bytes nobody may read any more: refused or superseded receives, expired
 * uploads, deleted assets. Runs from the durable event subscription: a storage failure
 * throws, and the subscription retries the same event with backoff until storage answers.
 * Deleting is idempotent, so a redelivery is harmless; each event is one cleanup job.
 * Exclusive: with several workers, one runs it at a time (see `Reactor.exclusive`).
 */
@AsReactor()
@Injectable()
export class StorageCleanupReactor implements Reactor {
  readonly name = 'assets.storage-cleanup';
  readonly handles = ['UploadReceiveFailed', 'UploadReceived', 'UploadContentMismatched', 'UploadExpired', 'AssetDeleted'];
  /** One worker deletes (a lease across the processes sharing the stores), not every worker. */
  readonly exclusive = true;
  private readonly logger = new Logger('AssetStorageCleanup');

  constructor(private readonly blobs: BlobStore) {}

  async handle(event: RecordedEvent): Promise<void> {
    for (const key of objectsFreedBy(event)) {
      await this.blobs.delete(key);
      this.logger.debug(`removed stored object ${key} (${event.type})`);
    }
  }
}
