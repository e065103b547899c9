import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { BlobStore, type Command } from '@gensvc/shared';
import { AssetRecords, outputAssetId } from '../asset-records';

/** A task's output file, sent by the suppliers context through the `AssetRegistry` port. */
export type RegisterOutputCommand = Command<
  'RegisterOutput',
  {
    readonly account_id: string;
    readonly task_id: string;
    /** The output's place among the task's outputs. */
    readonly index: number;
    readonly name: string;
    readonly mime: string;
    readonly body: Buffer;
  }
>;

/**
 * Stores a task output as the account's asset. The asset id is derived from (task, index),
 * so a repeat returns the same id and stores nothing new.
 */
@Injectable()
export class RegisterOutputHandler {
  constructor(
    private readonly records: AssetRecords,
    private readonly blobs: BlobStore,
  ) {}

  async execute(cmd: RegisterOutputCommand): Promise<string> {
    const output = cmd.data;
    const assetId = outputAssetId(output.task_id, output.index);
    if ((await this.records.load(assetId)).status !== 'none') return assetId;
    const blobKey = `assets/${assetId}`;
    await this.blobs.put(blobKey, Readable.from([output.body]), { contentType: output.mime, size: output.body.length });
    await this.records.register({
      asset_id: assetId,
      account_id: output.account_id,
      name: output.name,
      mime: output.mime,
      size: output.body.length,
      checksum: createHash('sha256').update(output.body).digest('hex'),
      blob_key: blobKey,
      source: { kind: 'task_output', task_id: output.task_id, index: output.index },
      created_at: cmd.metadata.now.toISOString(),
    });
    return assetId;
  }
}
