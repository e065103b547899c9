import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { fold as foldWith } from '@gensvc/kernel';
import { effectiveStatus, uploadDecider, type Upload, type UploadEvent } from './upload';

const fold = (events: readonly UploadEvent[]) => foldWith(uploadDecider, events);

const T0 = '2026-01-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const MIN = 60_000;
const meta = { name: 'a.png', mime: 'image/png', size: 10, checksum: 'a'.repeat(64) };

const prepared: UploadEvent = {
  type: 'UploadPrepared',
  data: { ...meta, upload_id: 'up_1', account_id: 'acc_1', connection_id: 'key_1', idempotency_key: 'key-12345', prepared_at: T0, expires_at: at(15 * MIN) },
};
const started = (id: string, t = 1000): UploadEvent => ({
  type: 'UploadReceiveStarted',
  data: { upload_id: 'up_1', receive_id: id, blob_key: `uploads/up_1/${id}`, started_at: at(t), deadline: at(t + 65_000) },
});
const received = (id: string, superseded: string | null = null): UploadEvent => ({
  type: 'UploadReceived',
  data: { upload_id: 'up_1', receive_id: id, blob_key: `uploads/up_1/${id}`, superseded_blob_key: superseded, received_at: at(2000) },
});
const prepare = (over: Partial<typeof meta> = {}) => ({ type: 'PrepareUpload' as const, data: { ...meta, ...over, upload_id: 'up_1', account_id: 'acc_1', connection_id: 'key_1', idempotency_key: 'key-12345', validity_ms: 15 * MIN }, metadata: { now: new Date(T0) } });
const spec = DeciderSpecification.for(uploadDecider);

describe('upload decider', () => {
  it('prepares with a 15-minute validity', () => {
    spec.given([]).when(prepare()).then([prepared]);
  });

  it('treats a repeat with identical metadata as the same upload, whatever its state', () => {
    spec.given([prepared]).when(prepare()).then([]);
    spec
      .given([prepared, started('r1'), received('r1'), { type: 'UploadCompleted', data: { ...meta, upload_id: 'up_1', account_id: 'acc_1', asset_id: 'ast_1', blob_key: 'uploads/up_1/r1', completed_at: at(3000) } }])
      .when(prepare())
      .then([]);
  });

  it.each([{ name: 'b.png' }, { mime: 'image/jpeg' }, { size: 11 }, { checksum: 'b'.repeat(64) }])('refuses different metadata %j under the same key', (over) => {
    spec.given([prepared]).when(prepare(over)).thenThrows('IDEMPOTENCY_CONFLICT');
  });

  it('starts a receive (uploading) and refuses a second concurrent one', () => {
    spec.given([prepared]).when({ type: 'StartReceive', data: { receive_id: 'r1', blob_key: 'uploads/up_1/r1', receive_timeout_ms: 60_000 }, metadata: { now: new Date(at(1000)) } }).then([started('r1')]);
    spec
      .given([prepared, started('r1')])
      .when({ type: 'StartReceive', data: { receive_id: 'r2', blob_key: 'uploads/up_1/r2', receive_timeout_ms: 60_000 }, metadata: { now: new Date(at(2000)) } })
      .thenThrows('UPLOAD_IN_PROGRESS');
  });

  it('closes an abandoned receive (no outcome after its deadline) before starting a new one', () => {
    spec
      .given([prepared, started('r1')])
      .when({ type: 'StartReceive', data: { receive_id: 'r2', blob_key: 'uploads/up_1/r2', receive_timeout_ms: 60_000 }, metadata: { now: new Date(at(70_000)) } })
      .then([
        { type: 'UploadReceiveFailed', data: { upload_id: 'up_1', receive_id: 'r1', blob_key: 'uploads/up_1/r1', error_code: null, at: at(70_000) } },
        { type: 'UploadReceiveStarted', data: { upload_id: 'up_1', receive_id: 'r2', blob_key: 'uploads/up_1/r2', started_at: at(70_000), deadline: at(135_000) } },
      ]);
  });

  it('refuses writes after expiry with UPLOAD_EXPIRED', () => {
    spec
      .given([prepared])
      .when({ type: 'StartReceive', data: { receive_id: 'r1', blob_key: 'k', receive_timeout_ms: 60_000 }, metadata: { now: new Date(at(15 * MIN)) } })
      .thenThrows('UPLOAD_EXPIRED');
  });

  it('finishes a receive into uploaded, superseding earlier accepted bytes', () => {
    spec.given([prepared, started('r1')]).when({ type: 'FinishReceive', data: { receive_id: 'r1' }, metadata: { now: new Date(at(2000)) } }).then([received('r1')]);
    spec
      .given([prepared, started('r1'), received('r1'), started('r2')])
      .when({ type: 'FinishReceive', data: { receive_id: 'r2' }, metadata: { now: new Date(at(2000)) } })
      .then([received('r2', 'uploads/up_1/r1')]);
  });

  it('does not accept bytes that finished after expiry', () => {
    spec.given([prepared, started('r1', 14 * MIN)]).when({ type: 'FinishReceive', data: { receive_id: 'r1' }, metadata: { now: new Date(at(15 * MIN + 1)) } }).thenThrows('UPLOAD_EXPIRED');
  });

  it('a failed receive returns to prepared, keeping its error code, and the upload stays usable', () => {
    const failed: UploadEvent = { type: 'UploadReceiveFailed', data: { upload_id: 'up_1', receive_id: 'r1', blob_key: 'uploads/up_1/r1', error_code: 'CHECKSUM_MISMATCH', at: at(2000) } };
    spec.given([prepared, started('r1')]).when({ type: 'FailReceive', data: { receive_id: 'r1', error_code: 'CHECKSUM_MISMATCH' }, metadata: { now: new Date(at(2000)) } }).then([failed]);
    const s = fold([prepared, started('r1'), failed]) as Upload;
    expect(s.status).toBe('prepared');
    expect(s.error_code).toBe('CHECKSUM_MISMATCH');
    spec.given([prepared, started('r1'), failed]).when({ type: 'StartReceive', data: { receive_id: 'r2', blob_key: 'uploads/up_1/r2', receive_timeout_ms: 60_000 }, metadata: { now: new Date(at(3000)) } }).thenReturns((e) => expect(e.map((x) => x.type)).toEqual(['UploadReceiveStarted']));
  });

  it('a failed re-send keeps the bytes accepted before (uploaded)', () => {
    const s = fold([prepared, started('r1'), received('r1'), started('r2'), { type: 'UploadReceiveFailed', data: { upload_id: 'up_1', receive_id: 'r2', blob_key: 'uploads/up_1/r2', error_code: 'SIZE_MISMATCH', at: at(3000) } }]) as Upload;
    expect(s.status).toBe('uploaded');
    expect(s.blob_key).toBe('uploads/up_1/r1');
  });

  it('complete: not ready while prepared, in progress while uploading', () => {
    spec.given([prepared]).when({ type: 'CompleteUpload', data: { blob_key: 'x', intact: true, asset_id: 'ast_1' }, metadata: { now: new Date(at(2000)) } }).thenThrows('UPLOAD_NOT_READY');
    spec.given([prepared, started('r1')]).when({ type: 'CompleteUpload', data: { blob_key: 'x', intact: true, asset_id: 'ast_1' }, metadata: { now: new Date(at(2000)) } }).thenThrows('UPLOAD_IN_PROGRESS');
  });

  it('complete: intact bytes give one asset; a repeat gives nothing new', () => {
    const completed: UploadEvent = { type: 'UploadCompleted', data: { ...meta, upload_id: 'up_1', account_id: 'acc_1', asset_id: 'ast_1', blob_key: 'uploads/up_1/r1', completed_at: at(3000) } };
    spec.given([prepared, started('r1'), received('r1')]).when({ type: 'CompleteUpload', data: { blob_key: 'uploads/up_1/r1', intact: true, asset_id: 'ast_1' }, metadata: { now: new Date(at(3000)) } }).then([completed]);
    spec.given([prepared, started('r1'), received('r1'), completed]).when({ type: 'CompleteUpload', data: { blob_key: 'uploads/up_1/r1', intact: true, asset_id: 'ast_2' }, metadata: { now: new Date(at(4000)) } }).then([]);
    // Even after the validity: a completed upload stays completed.
    expect(effectiveStatus(fold([prepared, started('r1'), received('r1'), completed]) as Upload, at(60 * MIN))).toBe('completed');
  });

  it('complete: damaged bytes return the upload to prepared with UPLOAD_CONTENT_MISMATCH', () => {
    const mism: UploadEvent = { type: 'UploadContentMismatched', data: { upload_id: 'up_1', blob_key: 'uploads/up_1/r1', at: at(3000) } };
    spec.given([prepared, started('r1'), received('r1')]).when({ type: 'CompleteUpload', data: { blob_key: 'uploads/up_1/r1', intact: false, asset_id: 'ast_1' }, metadata: { now: new Date(at(3000)) } }).then([mism]);
    const s = fold([prepared, started('r1'), received('r1'), mism]) as Upload;
    expect([s.status, s.error_code, s.blob_key]).toEqual(['prepared', 'UPLOAD_CONTENT_MISMATCH', null]);
  });

  it('complete after expiry is UPLOAD_EXPIRED', () => {
    spec.given([prepared, started('r1'), received('r1')]).when({ type: 'CompleteUpload', data: { blob_key: 'uploads/up_1/r1', intact: true, asset_id: 'ast_1' }, metadata: { now: new Date(at(15 * MIN)) } }).thenThrows('UPLOAD_EXPIRED');
  });

  it('expires unfinished uploads once, listing every object their receives may have left', () => {
    const expired: UploadEvent = { type: 'UploadExpired', data: { upload_id: 'up_1', account_id: 'acc_1', blob_keys: ['uploads/up_1/r1'], at: at(16 * MIN) } };
    spec.given([prepared, started('r1'), received('r1')]).when({ type: 'ExpireUpload', data: {}, metadata: { now: new Date(at(16 * MIN)) } }).then([expired]);
    spec.given([prepared, started('r1'), received('r1'), expired]).when({ type: 'ExpireUpload', data: {}, metadata: { now: new Date(at(17 * MIN)) } }).then([]);
    spec.given([prepared]).when({ type: 'ExpireUpload', data: {}, metadata: { now: new Date(at(14 * MIN)) } }).then([]);
  });

  it('shows uploads as expired at the deadline even before the background job ran', () => {
    const s = fold([prepared]) as Upload;
    expect(effectiveStatus(s, at(15 * MIN - 1))).toBe('prepared');
    expect(effectiveStatus(s, at(15 * MIN))).toBe('expired');
  });

  it('unknown uploads are NOT_FOUND', () => {
    spec.given([]).when({ type: 'FinishReceive', data: { receive_id: 'r' }, metadata: { now: new Date(T0) } }).thenThrows('NOT_FOUND');
  });
});
