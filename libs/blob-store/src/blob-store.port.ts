import type { Readable } from 'node:stream';

export interface BlobStat {
  readonly size: number;
  readonly lastModified: Date;
  /** Store-specific entity tag; the assets context derives its own ETag from the SHA-256. */
  readonly etag?: string;
}

/** Inclusive byte range, as in HTTP Range. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * Blob store port for file bytes. Puts stream (never buffer the whole object) and are
 * atomic: a reader sees the old object, the new one, or none, never a partial one.
 */
export abstract class BlobStore {
  /** Streams `body` into `key`; resolves with the number of bytes stored. */
  abstract put(key: string, body: Readable, options?: { contentType?: string; size?: number }): Promise<{ size: number }>;
  /** The object's bytes (or one inclusive range of them); NOT_FOUND error when absent. */
  abstract get(key: string, range?: ByteRange): Promise<Readable>;
  /** Metadata, or null when the object does not exist. */
  abstract stat(key: string): Promise<BlobStat | null>;
  /** Deletes; deleting a missing object is not an error. */
  abstract delete(key: string): Promise<void>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}
