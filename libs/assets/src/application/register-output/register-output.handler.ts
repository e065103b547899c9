import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { BlobStore } from '@gensvc/blob-store';
import { type Command } from '@gensvc/kernel';
import { AssetRecords, outputAssetId } from '../asset-records';
import { storeInspected } from '../store-inspected';

/** A task's output file, sent by the suppliers context through the `AssetRegistry` port. */
export type RegisterOutputCommand = Command<
  'RegisterOutput',
  {
    readonly account_id: string;
    readonly task_id: string;
    /** The output's place among the task's outputs. */
    readonly index: number;
    readonly name: string;
    /** The type the supplier named (a hint: the stored type is the one the bytes show). */
    readonly mime: string;
    /** The bytes, in memory or streamed from the supplier (never held whole in memory then). */
    readonly body: Buffer | Readable;
    /** Largest file accepted; the stream fails past it. */
    readonly max_bytes: number;
    /** The whole file must arrive within this long. */
    readonly timeout_ms: number;
  }
>;

/**
 * Stores a task output as the account's asset. The bytes stream through the same checks as
 * an import: the real type is recognised from the file's signature (a type the service does
 * not accept, such as HTML, SVG or JavaScript, fails with UNSUPPORTED_MEDIA_TYPE; a
 * signature that contradicts the supplier's type fails with FILE_TYPE_MISMATCH), SHA-256 and
 * size are computed on the way, and nothing is committed unless every check passed. The
 * asset id is derived from (task, index), so a repeat returns the same id and stores
 * nothing new.
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
    const source = Buffer.isBuffer(output.body) ? Readable.from([output.body]) : output.body;
    if ((await this.records.load(assetId)).status !== 'none') {
      source.destroy();
      return assetId;
    }
    const blobKey = `assets/${assetId}`;
    const hint = output.mime.split(';')[0]!.trim().toLowerCase() || null;
    const checked = await storeInspected(this.blobs, blobKey, source, { mode: 'detect', hint }, { maxBytes: output.max_bytes, timeoutMs: output.timeout_ms });
    await this.records.register({
      asset_id: assetId,
      account_id: output.account_id,
      name: output.name,
      mime: checked.mime,
      size: checked.size,
      checksum: checked.checksum,
      blob_key: blobKey,
      source: { kind: 'task_output', task_id: output.task_id, index: output.index },
      created_at: cmd.metadata.now.toISOString(),
    });
    return assetId;
  }
}
