import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AppError, type Command } from '@gensvc/kernel';
import { decodeFileNameHeader } from '../../domain/file-name';
import { UploadLimits } from '../../domain/limits';
import { acceptedContentType } from '../../domain/media-types';
import { AssetIngest } from '../asset-ingest';
import type { AssetView } from '../asset-records';
import { ReceiveSlots } from '../receive-slots';

/** POST /v1/uploads: the raw body with its Content-Type, Content-Length and X-Filename headers. */
export type DirectUploadCommand = Command<
  'DirectUpload',
  {
    readonly account_id: string;
    readonly body: Readable;
    readonly content_type: string | undefined;
    readonly content_length: number | undefined;
    readonly file_name: string | string[] | undefined;
  }
>;

/** Direct upload: raw bytes, checked against the declared type, stored as one asset (201) under a receive slot. */
@Injectable()
export class DirectUploadHandler {
  constructor(
    private readonly limits: UploadLimits,
    private readonly slots: ReceiveSlots,
    private readonly ingest: AssetIngest,
  ) {}

  async execute(cmd: DirectUploadCommand): Promise<AssetView> {
    const { account_id: accountId, content_length: contentLength } = cmd.data;
    const mime = acceptedContentType(cmd.data.content_type);
    const name = decodeFileNameHeader(cmd.data.file_name);
    if (contentLength !== undefined && contentLength > this.limits.maxFileBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `the file is larger than ${this.limits.maxFileBytes} bytes`);
    }
    const slot = await this.slots.acquire(accountId);
    try {
      return await this.ingest.ingest(accountId, name, cmd.data.body, { mode: 'declared', mime }, { kind: 'direct' }, { slot, expectedBytes: contentLength });
    } finally {
      slot.release();
    }
  }
}
