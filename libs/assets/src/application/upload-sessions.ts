import { Injectable } from '@nestjs/common';
import { AppError, Clock, streamName } from '@gensvc/kernel';
import { EventStore, SubscriptionEngine, caughtUp, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { UPLOAD_STREAM, effectiveStatus, uploadDecider, type Upload, type UploadCommand, type UploadStatus } from '../domain/upload';
import { AssetRecords, type AssetView } from './asset-records';

/** The Upload object of the spec, exactly its fields. */
export interface UploadView {
  upload_id: string;
  status: UploadStatus;
  name: string;
  mime: string;
  size: number;
  checksum: string;
  expires_at: string;
  asset_id: string | null;
  error_code: string | null;
  upload?: { url: string; method: 'PUT'; headers: Record<string, string> };
  /** The registered asset; without its signed links for a caller that may not read (`withoutLinks`). */
  asset?: AssetView | Omit<AssetView, LinkField>;
}

type LinkField = 'url' | 'download_url' | 'links_expire_at';

/**
 * The upload as a caller without the read scope sees it (a create-only grant, an upload
 * token): signed links are a read of the file, so the asset comes without them. Its id is
 * there, to be used in a task.
 */
export function withoutLinks(view: UploadView): UploadView {
  if (!view.asset) return view;
  const { url: _url, download_url: _download, links_expire_at: _expires, ...asset } = view.asset as AssetView;
  return { ...view, asset };
}

/** Statuses of an upload that is not finished yet (it counts towards the session limit and can expire). */
export const OPEN_UPLOAD_STATUSES: readonly UploadStatus[] = ['prepared', 'uploading', 'uploaded'];

/**
 * What the upload use cases share: an upload of the caller's account read from its stream,
 * a command recorded on it (read your writes), and the Upload object of the spec.
 */
@Injectable()
export class UploadSessions {
  constructor(
    private readonly events: EventStore,
    private readonly engine: SubscriptionEngine,
    private readonly clock: Clock,
    private readonly assets: AssetRecords,
  ) {}

  /** The account's upload; NOT_FOUND for a malformed, unknown or foreign id. */
  async owned(accountId: string, uploadId: string): Promise<Upload> {
    if (typeof uploadId !== 'string' || !/^up_[a-z0-9]{1,64}$/.test(uploadId)) throw new AppError('NOT_FOUND', 'upload not found');
    const { state } = await loadAggregate(this.events, streamName(UPLOAD_STREAM, uploadId), uploadDecider);
    if (state.status === 'none' || state.account_id !== accountId) throw new AppError('NOT_FOUND', 'upload not found');
    return state;
  }

  /**
   * Records a command on the upload's stream and waits until the read models show it. Every
   * answer about an upload is built from its stream (the returned state), so a lag of the read
   * models (ProjectionLagError) does not fail the command: what follows it (storing the
   * content, the answer) must go on once it is stored.
   */
  async record(uploadId: string, command: UploadCommand) {
    const result = await handleCommand(this.events, streamName(UPLOAD_STREAM, uploadId), uploadDecider, command);
    await caughtUp(this.engine.waitFor(result.position));
    return result;
  }

  /** The Upload object: effective status, and the asset while it exists. */
  async view(state: Upload): Promise<UploadView> {
    const view: UploadView = {
      upload_id: state.upload_id,
      status: effectiveStatus(state, this.clock.now()),
      name: state.name,
      mime: state.mime,
      size: state.size,
      checksum: state.checksum,
      expires_at: state.expires_at,
      asset_id: state.asset_id,
      error_code: state.error_code,
    };
    if (state.asset_id) {
      const asset = await this.assets.findActive(state.account_id, state.asset_id);
      if (asset) view.asset = this.assets.view(asset);
    }
    return view;
  }
}
