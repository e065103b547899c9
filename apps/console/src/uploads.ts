import { gensvc, type Upload } from './api';

/** The media types the service accepts, and what to show for common file names when the browser gives none. */
const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain', text: 'text/plain', md: 'text/plain', csv: 'text/plain', log: 'text/plain',
  json: 'application/json',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp',
  mp4: 'video/mp4', mp3: 'audio/mpeg', wav: 'audio/wav',
};
const ALIASES: Record<string, string> = { 'audio/x-wav': 'audio/wav', 'audio/wave': 'audio/wav', 'audio/vnd.wave': 'audio/wav', 'audio/mp3': 'audio/mpeg', 'text/markdown': 'text/plain', 'text/csv': 'text/plain' };

/** The type the browser gives a file (or its name suggests), shown until the file's own bytes are read. */
export function mimeOf(file: { name: string; type: string }): string {
  const t = (file.type || '').toLowerCase();
  if (t) return ALIASES[t] ?? t;
  const ext = file.name.toLowerCase().split('.').pop() ?? '';
  return BY_EXTENSION[ext] ?? 'application/octet-stream';
}

export type UploadPhase = 'waiting' | 'hashing' | 'preparing' | 'sending' | 'completing' | 'done' | 'failed';

export interface UploadProgress {
  phase: UploadPhase;
  fraction: number;
  /** What the SDK computed before announcing the file. */
  facts?: { mime: string; checksum: string };
  upload?: Upload;
  error?: unknown;
}

/**
 * One file through the SDK's upload helper: size, real type and SHA-256 computed here in the
 * browser (Web Crypto), then prepare → PUT (XMLHttpRequest, with progress) → complete. `key`
 * is the upload's idempotency_key: the caller keeps it for the file, so a retry prepares the
 * same upload and continues from its state (nothing is sent twice once the service has the
 * bytes; an interrupted transfer is sent again whole).
 */
export async function uploadFile(file: File, key: string, onProgress: (p: UploadProgress) => void): Promise<Upload> {
  let facts: UploadProgress['facts'];
  onProgress({ phase: 'hashing', fraction: 0 });
  const up = await gensvc.uploads.upload(file, {
    name: file.name.slice(0, 200),
    idempotencyKey: key,
    onInspected: (f) => {
      facts = { mime: f.mime, checksum: f.checksum };
      onProgress({ phase: 'preparing', fraction: 0, facts });
    },
    onProgress: ({ loaded, total }) =>
      onProgress(loaded >= total && loaded > 0 ? { phase: 'completing', fraction: 1, facts } : { phase: 'sending', fraction: total ? loaded / total : 0, facts }),
  });
  onProgress({ phase: 'done', fraction: 1, facts, upload: up });
  return up;
}
