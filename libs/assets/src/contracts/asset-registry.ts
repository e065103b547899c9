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
  /**
   * Stores a task output as the account's asset. Idempotent per (taskId, index): a repeat
   * returns the same asset id and stores nothing new.
   */
  abstract registerOutput(output: {
    accountId: string;
    taskId: string;
    index: number;
    name: string;
    mime: string;
    body: Buffer;
  }): Promise<string>;
}
