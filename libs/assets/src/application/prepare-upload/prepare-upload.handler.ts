import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '@gensvc/config';
import { AppError, streamName, type Command } from '@gensvc/kernel';
import { EventStore, KeyedLock, LeaseBusyError, LeaseStore, ReadStore, SubscriptionEngine, caughtUp, handleCommand, loadAggregate, withLease } from '@gensvc/event-sourcing';
import { UploadTokens } from '@gensvc/identity/contracts';
import { checkFileName } from '../../domain/file-name';
import { UploadLimits } from '../../domain/limits';
import { ACCEPTED_MIMES, isAcceptedMime } from '../../domain/media-types';
import { UPLOAD_STREAM, uploadDecider, type Upload } from '../../domain/upload';
import { OPEN_UPLOAD_STATUSES, UploadSessions, type UploadView } from '../upload-sessions';
import { UPLOADS, type UploadDoc } from '../uploads.projection';

/** POST /v1/uploads/prepare: the file's metadata, checked by the DTO, for the caller's account and connection. */
export type PrepareUploadCommand = Command<
  'PrepareUpload',
  {
    readonly account_id: string;
    readonly connection_id: string;
    readonly name: string;
    readonly mime: string;
    readonly size: number;
    readonly checksum: string;
    readonly idempotency_key: string;
  }
>;

/** Upload id for (account, idempotency_key): a repeat of prepare lands on the same stream. */
export function uploadIdFor(accountId: string, idempotencyKey: string): string {
  return `up_${createHash('sha256').update(`upload\n${accountId}\n${idempotencyKey}`).digest('hex').slice(0, 32)}`;
}

/**
 * Prepares an upload session (spec "Uploads" rules 1–4): checks name, type and size, opens
 * the session once per idempotency key (a repeat answers the same session), refuses past the
 * account's limit of unfinished sessions, and hands out the PUT address with its upload token
 * while the session is open.
 */
@Injectable()
export class PrepareUploadHandler {
  /** Per account: the session count and the prepare run one at a time. */
  private readonly accountLocks = new KeyedLock();

  constructor(
    private readonly events: EventStore,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
    private readonly limits: UploadLimits,
    private readonly tokens: UploadTokens,
    private readonly config: AppConfig,
    private readonly leases: LeaseStore,
    private readonly sessions: UploadSessions,
  ) {}

  async execute(cmd: PrepareUploadCommand): Promise<UploadView> {
    const { account_id: accountId, connection_id: connectionId, ...input } = cmd.data;
    const now = cmd.metadata.now;
    checkFileName(input.name, 'name');
    if (!isAcceptedMime(input.mime)) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `mime: ${input.mime} is not accepted; use one of ${ACCEPTED_MIMES.join(', ')}`);
    }
    if (input.size > this.limits.maxFileBytes) throw new AppError('PAYLOAD_TOO_LARGE', `size: at most ${this.limits.maxFileBytes} bytes`);
    const uploadId = uploadIdFor(accountId, input.idempotency_key);
    const stream = streamName(UPLOAD_STREAM, uploadId);
    // The unfinished-uploads limit holds across processes: the count and the new session's
    // append happen under the account's prepare lease, after this process's read model caught
    // up with everything any process stored, so two processes cannot both take the last place.
    // A read model that does not catch up in time cannot count: the prepare is refused with
    // UPLOAD_BUSY and nothing is stored (never counted on a lagging model).
    const prepareOnce = async () => {
      const current = await loadAggregate(this.events, stream, uploadDecider);
      if (current.state.status === 'none') {
        if (!(await caughtUp(this.engine.waitFor(await this.events.headPosition())))) {
          throw new AppError('UPLOAD_BUSY', 'the upload sessions of this account are being brought up to date; nothing was prepared; try again', { 'Retry-After': '1' });
        }
        await this.checkSessionLimit(accountId, now);
      }
      const result = await handleCommand(this.events, stream, uploadDecider, {
        type: 'PrepareUpload',
        data: { ...input, upload_id: uploadId, account_id: accountId, connection_id: connectionId, validity_ms: this.limits.uploadValidityMs },
        metadata: { now },
      });
      // The answer is built from the stream; the next prepare of the account waits for the
      // read model to count this session (above), so a lag here does not fail the prepare.
      await caughtUp(this.engine.waitFor(result.position));
      return result.state as Upload;
    };
    const state = await this.accountLocks.run(accountId, () =>
      withLease(this.leases, `upload-prepare:${accountId}`, prepareOnce, { ttlMs: 15_000, waitMs: 10_000 }).catch((err: unknown) => {
        if (err instanceof LeaseBusyError) throw new AppError('UPLOAD_BUSY', 'another upload of this account is being prepared; try again', { 'Retry-After': '1' });
        throw err;
      }),
    );
    const view = await this.sessions.view(state);
    if (OPEN_UPLOAD_STATUSES.includes(view.status)) {
      const token = await this.tokens.issue({ accountId: state.account_id, connectionId, uploadId, expiresAt: new Date(state.expires_at) });
      view.upload = {
        url: `${this.config.publicBaseUrl}/v1/uploads/${uploadId}/content`,
        method: 'PUT',
        headers: { 'X-Upload-Token': token, 'Content-Type': state.mime },
      };
    }
    return view;
  }

  private async checkSessionLimit(accountId: string, now: Date): Promise<void> {
    const open = await this.readStore
      .collection<UploadDoc>(UPLOADS)
      .find({ account_id: accountId, status: { $in: [...OPEN_UPLOAD_STATUSES] }, expires_at: { $gt: now.toISOString() } }, { sort: { expires_at: 1 } });
    if (open.length < this.limits.maxIncompleteSessions) return;
    const retryAfter = Math.max(1, Math.ceil((Date.parse(open[0].expires_at) - now.getTime()) / 1000));
    throw new AppError(
      'UPLOAD_LIMIT_REACHED',
      `this account has ${open.length} unfinished uploads (at most ${this.limits.maxIncompleteSessions}); complete them or wait until they expire`,
      { 'Retry-After': String(retryAfter) },
    );
  }
}
