import { ApiError, api, putContent, type Upload } from './api';

/** The media types the service accepts, and what to send for common file names when the browser gives none. */
const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain', text: 'text/plain', md: 'text/plain', csv: 'text/plain', log: 'text/plain',
  json: 'application/json',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp',
  mp4: 'video/mp4', mp3: 'audio/mpeg', wav: 'audio/wav',
};
const ALIASES: Record<string, string> = { 'audio/x-wav': 'audio/wav', 'audio/wave': 'audio/wav', 'audio/vnd.wave': 'audio/wav', 'audio/mp3': 'audio/mpeg', 'text/markdown': 'text/plain', 'text/csv': 'text/plain' };

export function mimeOf(file: { name: string; type: string }): string {
  const t = (file.type || '').toLowerCase();
  if (t) return ALIASES[t] ?? t;
  const ext = file.name.toLowerCase().split('.').pop() ?? '';
  return BY_EXTENSION[ext] ?? 'application/octet-stream';
}

export async function sha256Hex(file: Blob): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export type UploadPhase = 'waiting' | 'hashing' | 'preparing' | 'sending' | 'completing' | 'done' | 'failed';

export interface UploadProgress {
  phase: UploadPhase;
  fraction: number;
  upload?: Upload;
  error?: unknown;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One file through prepare → PUT → complete. `key` is the upload's idempotency_key: the
 * caller keeps it for the file, so a retry prepares the same upload and continues from its
 * state (nothing is sent twice once the service has the bytes).
 */
export async function uploadFile(file: File, key: string, checksum: string, onProgress: (p: UploadProgress) => void): Promise<Upload> {
  const mime = mimeOf(file);
  onProgress({ phase: 'preparing', fraction: 0 });
  let up = await api.prepareUpload({ name: file.name.slice(0, 200), mime, size: file.size, checksum, idempotency_key: key });
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      if (up.status === 'completed') break;
      if (up.status === 'expired') throw new ApiError(410, 'UPLOAD_EXPIRED', 'This upload expired before it was completed. Remove it and add the file again.', null);
      if (up.status === 'prepared') {
        if (!up.upload) up = await api.prepareUpload({ name: file.name.slice(0, 200), mime, size: file.size, checksum, idempotency_key: key });
        const instructions = up.upload;
        if (!instructions) throw new ApiError(0, 'UPLOAD_NOT_READY', 'The service did not return upload instructions.', null);
        onProgress({ phase: 'sending', fraction: 0, upload: up });
        up = await putContent(instructions, file, mime, (f) => onProgress({ phase: 'sending', fraction: f, upload: up }));
      }
      if (up.status === 'uploading') {
        await sleep(1000);
        up = await api.upload(up.upload_id);
        continue;
      }
      if (up.status === 'uploaded') {
        onProgress({ phase: 'completing', fraction: 1, upload: up });
        up = await api.completeUpload(up.upload_id);
      }
    } catch (err) {
      // Busy or in progress: ask for the original upload later instead of starting another.
      if (err instanceof ApiError && (err.code === 'UPLOAD_IN_PROGRESS' || err.code === 'UPLOAD_BUSY')) {
        await sleep((err.retryAfter ?? 1) * 1000);
        up = await api.upload(up.upload_id);
        continue;
      }
      throw err;
    }
  }
  if (up.status !== 'completed') throw new ApiError(0, 'UPLOAD_NOT_READY', `The upload is still ${up.status}. Retry in a moment.`, null);
  onProgress({ phase: 'done', fraction: 1, upload: up });
  return up;
}
