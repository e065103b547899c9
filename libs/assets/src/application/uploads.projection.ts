import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import { UPLOAD_EVENT_TYPES, uploadDecider, type Upload, type UploadEvent } from '../domain/upload';

/** Upload sessions by account: the session limit (prepare-upload) and the expiry (expire-uploads) read it. */
export const UPLOADS = 'assets_uploads';
export type UploadDoc = Upload & { _id: string } & Record<string, unknown>;

/** One document per upload: the upload's state, folded by the decider's own `evolve`. */
@AsProjection()
@Injectable()
export class UploadsProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<Upload & Record<string, unknown>, UploadEvent>({
    name: 'assets.uploads',
    collection: UPLOADS,
    handles: UPLOAD_EVENT_TYPES,
    documentId: (e) => e.data.upload_id,
    indexes: [{ keys: { account_id: 1, status: 1 } }, { keys: { status: 1, expires_at: 1 } }],
    evolve(doc, e) {
      const next = uploadDecider.evolve(doc ?? uploadDecider.initialState(), e);
      return next.status === 'none' ? null : (next as Upload & Record<string, unknown>);
    },
  });
}
