import { AppError, type Command, type Decider, type ErrorCode } from '@gensvc/kernel';

/**
 * The prepared upload (stream `upload-<upload_id>`): spec "States and transitions / Upload".
 * Times in state and events are RFC 3339 strings; `now` arrives with each command.
 */
export const UPLOAD_STREAM = 'upload';

/** Grace after the receive time limit before a receive without outcome counts as abandoned. */
export const ABANDONED_RECEIVE_GRACE_MS = 5_000;

export type UploadStatus = 'prepared' | 'uploading' | 'uploaded' | 'completed' | 'expired';

export interface UploadMetadata {
  readonly name: string;
  readonly mime: string;
  readonly size: number;
  readonly checksum: string;
}

export type UploadEvent =
  | {
      type: 'UploadPrepared';
      data: UploadMetadata & {
        upload_id: string;
        account_id: string;
        connection_id: string;
        idempotency_key: string;
        prepared_at: string;
        expires_at: string;
      };
    }
  /** Bytes are arriving (status uploading) into `blob_key`; abandoned after `deadline`. */
  | { type: 'UploadReceiveStarted'; data: { upload_id: string; receive_id: string; blob_key: string; started_at: string; deadline: string } }
  /** The whole file arrived and passed every check; it replaces `superseded_blob_key`. */
  | {
      type: 'UploadReceived';
      data: { upload_id: string; receive_id: string; blob_key: string; superseded_blob_key: string | null; received_at: string };
    }
  /** A receive was refused (error_code) or interrupted (error_code null); its bytes are discarded. */
  | { type: 'UploadReceiveFailed'; data: { upload_id: string; receive_id: string; blob_key: string; error_code: string | null; at: string } }
  /** Complete found the stored object lost or damaged: back to prepared. */
  | { type: 'UploadContentMismatched'; data: { upload_id: string; blob_key: string; at: string } }
  | {
      type: 'UploadCompleted';
      data: UploadMetadata & { upload_id: string; account_id: string; asset_id: string; blob_key: string; completed_at: string };
    }
  /** Validity passed without completion; `blob_keys` are every object its receives may have left. */
  | { type: 'UploadExpired'; data: { upload_id: string; account_id: string; blob_keys: string[]; at: string } };

export const UPLOAD_EVENT_TYPES: readonly UploadEvent['type'][] = [
  'UploadPrepared',
  'UploadReceiveStarted',
  'UploadReceived',
  'UploadReceiveFailed',
  'UploadContentMismatched',
  'UploadCompleted',
  'UploadExpired',
];

export interface ActiveReceive {
  readonly receive_id: string;
  readonly blob_key: string;
  readonly deadline: string;
}

export type UploadState =
  | { readonly status: 'none' }
  | (UploadMetadata & {
      /** Stored status; what callers see is `effectiveStatus(state, now)`. */
      readonly status: UploadStatus;
      readonly upload_id: string;
      readonly account_id: string;
      readonly connection_id: string;
      readonly idempotency_key: string;
      readonly prepared_at: string;
      readonly expires_at: string;
      /** The accepted bytes (status uploaded or completed). */
      readonly blob_key: string | null;
      readonly receive: ActiveReceive | null;
      /** Every object key a receive was started for (cleanup on expiry). */
      readonly blob_keys: readonly string[];
      readonly error_code: string | null;
      readonly asset_id: string | null;
      readonly completed_at: string | null;
    });

export type Upload = Exclude<UploadState, { status: 'none' }>;

export type UploadCommand =
  | Command<'PrepareUpload', UploadMetadata & { upload_id: string; account_id: string; connection_id: string; idempotency_key: string; validity_ms: number }>
  | Command<'StartReceive', { receive_id: string; blob_key: string; receive_timeout_ms: number }>
  | Command<'FinishReceive', { receive_id: string }>
  | Command<'FailReceive', { receive_id: string; error_code: string | null }>
  /** The handler reread `blob_key`; `intact` tells whether size and SHA-256 matched. */
  | Command<'CompleteUpload', { blob_key: string; intact: boolean; asset_id: string }>
  | Command<'ExpireUpload', Record<string, never>>;

const ms = (iso: string): number => Date.parse(iso);

/** The status a caller sees at `now`: expiry and abandoned receives are read off the clock. */
export function effectiveStatus(state: Upload, now: Date | string): UploadStatus {
  const t = typeof now === 'string' ? ms(now) : now.getTime();
  if (state.status === 'completed' || state.status === 'expired') return state.status;
  if (t >= ms(state.expires_at)) return 'expired';
  if (state.status === 'uploading' && state.receive && t > ms(state.receive.deadline)) return state.blob_key ? 'uploaded' : 'prepared';
  return state.status;
}

export const sameMetadata = (a: UploadMetadata, b: UploadMetadata): boolean =>
  a.name === b.name && a.mime === b.mime && a.size === b.size && a.checksum === b.checksum;

function existing(state: UploadState): Upload {
  if (state.status === 'none') throw new AppError('NOT_FOUND', 'upload not found');
  return state;
}

function refuseUnlessOpen(state: Upload, now: string, action: 'write' | 'complete'): UploadStatus {
  const status = effectiveStatus(state, now);
  if (status === 'expired') {
    throw new AppError('UPLOAD_EXPIRED', `the upload expired at ${state.expires_at}; prepare again with a new idempotency_key`);
  }
  if (status === 'uploading') {
    throw new AppError('UPLOAD_IN_PROGRESS', `the upload's content is being received; query the upload later`);
  }
  if (action === 'complete' && status === 'prepared') {
    throw new AppError('UPLOAD_NOT_READY', 'the upload has no content yet; PUT the file first');
  }
  return status;
}

export const uploadDecider: Decider<UploadState, UploadCommand, UploadEvent> = {
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    switch (event.type) {
      case 'UploadPrepared': {
        const d = event.data;
        return {
          status: 'prepared',
          upload_id: d.upload_id,
          account_id: d.account_id,
          connection_id: d.connection_id,
          idempotency_key: d.idempotency_key,
          name: d.name,
          mime: d.mime,
          size: d.size,
          checksum: d.checksum,
          prepared_at: d.prepared_at,
          expires_at: d.expires_at,
          blob_key: null,
          receive: null,
          blob_keys: [],
          error_code: null,
          asset_id: null,
          completed_at: null,
        };
      }
      case 'UploadReceiveStarted': {
        const s = existing(state);
        const d = event.data;
        return {
          ...s,
          status: 'uploading',
          receive: { receive_id: d.receive_id, blob_key: d.blob_key, deadline: d.deadline },
          blob_keys: s.blob_keys.includes(d.blob_key) ? s.blob_keys : [...s.blob_keys, d.blob_key],
        };
      }
      case 'UploadReceived': {
        const s = existing(state);
        return { ...s, status: 'uploaded', receive: null, blob_key: event.data.blob_key, error_code: null };
      }
      case 'UploadReceiveFailed': {
        const s = existing(state);
        return { ...s, status: s.blob_key ? 'uploaded' : 'prepared', receive: null, error_code: event.data.error_code ?? s.error_code };
      }
      case 'UploadContentMismatched': {
        const s = existing(state);
        return { ...s, status: 'prepared', blob_key: null, receive: null, error_code: 'UPLOAD_CONTENT_MISMATCH' };
      }
      case 'UploadCompleted': {
        const s = existing(state);
        return {
          ...s,
          status: 'completed',
          receive: null,
          asset_id: event.data.asset_id,
          blob_key: event.data.blob_key,
          error_code: null,
          completed_at: event.data.completed_at,
        };
      }
      case 'UploadExpired': {
        const s = existing(state);
        return { ...s, status: 'expired', receive: null };
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },

  decide(command, state) {
    const now = command.metadata.now.toISOString();
    switch (command.type) {
      case 'PrepareUpload': {
        const c = command.data;
        if (state.status !== 'none') {
          // The id is derived from (account, idempotency_key): this is a repeat.
          if (!sameMetadata(state, c)) {
            throw new AppError(
              'IDEMPOTENCY_CONFLICT',
              'idempotency_key was used for an upload with different metadata (name, mime, size or checksum)',
            );
          }
          return [];
        }
        return [
          {
            type: 'UploadPrepared',
            data: {
              upload_id: c.upload_id,
              account_id: c.account_id,
              connection_id: c.connection_id,
              idempotency_key: c.idempotency_key,
              name: c.name,
              mime: c.mime,
              size: c.size,
              checksum: c.checksum,
              prepared_at: now,
              expires_at: new Date(ms(now) + c.validity_ms).toISOString(),
            },
          },
        ];
      }
      case 'StartReceive': {
        const s = existing(state);
        const c = command.data;
        if (effectiveStatus(s, now) === 'completed') return [];
        refuseUnlessOpen(s, now, 'write');
        const deadline = new Date(ms(now) + c.receive_timeout_ms + ABANDONED_RECEIVE_GRACE_MS).toISOString();
        const events: UploadEvent[] = [];
        // A receive that never reported its outcome (crash) is closed before the new one.
        if (s.status === 'uploading' && s.receive) {
          events.push({
            type: 'UploadReceiveFailed',
            data: { upload_id: s.upload_id, receive_id: s.receive.receive_id, blob_key: s.receive.blob_key, error_code: null, at: now },
          });
        }
        events.push({
          type: 'UploadReceiveStarted',
          data: { upload_id: s.upload_id, receive_id: c.receive_id, blob_key: c.blob_key, started_at: now, deadline },
        });
        return events;
      }
      case 'FinishReceive': {
        const s = existing(state);
        const c = command.data;
        if (s.status !== 'uploading' || s.receive?.receive_id !== c.receive_id) {
          throw new AppError('UPLOAD_IN_PROGRESS', 'this content write was superseded by another one; query the upload');
        }
        if (effectiveStatus(s, now) === 'expired') {
          throw new AppError('UPLOAD_EXPIRED', `the upload expired at ${s.expires_at} while its content arrived`);
        }
        return [
          {
            type: 'UploadReceived',
            data: {
              upload_id: s.upload_id,
              receive_id: c.receive_id,
              blob_key: s.receive.blob_key,
              superseded_blob_key: s.blob_key,
              received_at: now,
            },
          },
        ];
      }
      case 'FailReceive': {
        const s = existing(state);
        const c = command.data;
        if (s.status !== 'uploading' || s.receive?.receive_id !== c.receive_id) return [];
        return [
          {
            type: 'UploadReceiveFailed',
            data: { upload_id: s.upload_id, receive_id: c.receive_id, blob_key: s.receive.blob_key, error_code: c.error_code, at: now },
          },
        ];
      }
      case 'CompleteUpload': {
        const s = existing(state);
        const c = command.data;
        if (s.status === 'completed') return [];
        refuseUnlessOpen(s, now, 'complete');
        if (s.blob_key !== c.blob_key) {
          throw new AppError('UPLOAD_IN_PROGRESS', 'the upload content changed while it was checked; query the upload');
        }
        if (!c.intact) {
          return [{ type: 'UploadContentMismatched', data: { upload_id: s.upload_id, blob_key: c.blob_key, at: now } }];
        }
        return [
          {
            type: 'UploadCompleted',
            data: {
              upload_id: s.upload_id,
              account_id: s.account_id,
              asset_id: c.asset_id,
              name: s.name,
              mime: s.mime,
              size: s.size,
              checksum: s.checksum,
              blob_key: c.blob_key,
              completed_at: now,
            },
          },
        ];
      }
      case 'ExpireUpload': {
        if (state.status === 'none') return [];
        if (effectiveStatus(state, now) !== 'expired' || state.status === 'expired') return [];
        return [
          {
            type: 'UploadExpired',
            data: { upload_id: state.upload_id, account_id: state.account_id, blob_keys: [...state.blob_keys], at: now },
          },
        ];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};

/** Codes a content write may leave in `error_code`. */
export const RECEIVE_ERROR_CODES: readonly ErrorCode[] = [
  'CHECKSUM_MISMATCH',
  'SIZE_MISMATCH',
  'FILE_TYPE_MISMATCH',
  'INVALID_TEXT',
  'INVALID_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALIDATION_ERROR',
];
