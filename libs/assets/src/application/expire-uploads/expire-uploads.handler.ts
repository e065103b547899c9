import { Injectable } from '@nestjs/common';
import { ReadStore } from '@gensvc/event-sourcing';
import { type Command } from '@gensvc/kernel';
import { OPEN_UPLOAD_STATUSES, UploadSessions } from '../upload-sessions';
import { UPLOADS, type UploadDoc } from '../uploads.projection';

/** Sent by the upload expiry timer (`background/upload-expiry.job.ts`). */
export type ExpireUploadsCommand = Command<'ExpireUploads', Record<string, never>>;

/**
 * Marks unfinished uploads past their validity at `metadata.now` as expired (UploadExpired,
 * at most 500 per pass); the storage cleanup then removes their bytes. Returns how many it
 * expired.
 */
@Injectable()
export class ExpireUploadsHandler {
  constructor(
    private readonly readStore: ReadStore,
    private readonly sessions: UploadSessions,
  ) {}

  async execute(cmd: ExpireUploadsCommand): Promise<number> {
    const now = cmd.metadata.now;
    const due = await this.readStore
      .collection<UploadDoc>(UPLOADS)
      .find({ status: { $in: [...OPEN_UPLOAD_STATUSES] }, expires_at: { $lte: now.toISOString() } }, { limit: 500 });
    let expired = 0;
    for (const doc of due) {
      const r = await this.sessions.record(doc.upload_id, { type: 'ExpireUpload', data: {}, metadata: { now } });
      expired += r.events.length ? 1 : 0;
    }
    return expired;
  }
}
