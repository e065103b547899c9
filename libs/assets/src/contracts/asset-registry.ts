import type { Readable } from 'node:stream';

export interface UsableAsset {
  readonly id: string;
  readonly name: string;
  readonly mime: string;
  readonly size: number;
  readonly checksum: string;
}

/** What other contexts may ask of the assets context. */
export abstract class AssetRegistry {
  /**
   * The caller's own completed, undeleted assets, in the given order. Throws
   * VALIDATION_ERROR naming `${field}[i]` for an unknown, foreign, deleted or unfinished id.
   */
  abstract requireUsable(accountId: string, assetIds: readonly string[], field?: string): Promise<UsableAsset[]>;
  /** The bytes of a usable asset (for suppliers). */
  abstract open(assetId: string): Promise<Readable>;
  /** A signed link to a usable asset's bytes, valid for the link lifetime (for providers that fetch inputs by URL). */
  abstract link(assetId: string): string;
  /**
   * Stores a task output as the account's asset, streamed (memory does not grow with the
   * file) and checked like an import: the stored type is the one the bytes show, and a type
   * the service does not accept (HTML, SVG, scripts, ...) or one that contradicts `mime`
   * fails with UNSUPPORTED_MEDIA_TYPE / FILE_TYPE_MISMATCH and stores nothing. Idempotent
   * per (taskId, index): a repeat returns the same asset id and stores nothing new.
   */
  abstract registerOutput(output: {
    accountId: string;
    taskId: string;
    index: number;
    name: string;
    /** The type the supplier named (a hint). */
    mime: string;
    body: Buffer | Readable;
    /** Largest file accepted (default: the upload limit). */
    maxBytes?: number;
    /** Time the whole file may take to arrive (default: 10 minutes). */
    timeoutMs?: number;
  }): Promise<string>;
}
