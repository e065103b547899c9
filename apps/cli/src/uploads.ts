import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { ApiClient, ApiError, NetworkError } from './client';
import { inspectFile, uploadKey, type FileFacts } from './files';
import { byteProgress } from './progress';

/** The upload object of the spec (prepare, status read, content write and complete). */
export interface Upload {
  upload_id: string;
  status: 'prepared' | 'uploading' | 'uploaded' | 'completed' | 'expired';
  name: string;
  mime: string;
  size: number;
  checksum: string;
  expires_at: string;
  asset_id: string | null;
  error_code: string | null;
  /** Only in prepare's answer: where and how to send the bytes (carries the upload token). */
  upload?: { url: string; method: 'PUT'; headers: Record<string, string> };
  asset?: { id: string } & Record<string, unknown>;
}

export interface UploadOptions {
  readonly name?: string;
  readonly mime?: string;
  readonly quiet?: boolean;
  /** Logs a line on stderr (never credentials). */
  readonly log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MAX_GENERATIONS = 5;
const MAX_SENDS = 4;

/** The upload object without its upload instructions (they carry the upload token). */
export function withoutCredentials(u: Upload): Omit<Upload, 'upload'> {
  const { upload: _token, ...rest } = u;
  return rest;
}

/**
 * Uploads one file: size, real MIME and SHA-256 first; prepare (with an idempotency key
 * derived from the file, so a re-run resumes the same upload), PUT the bytes with a progress
 * bar, complete. An interrupted transfer is re-sent whole; an upload that expired starts over
 * under the next key; busy or in-progress answers are waited out, then the upload is read again.
 */
export async function uploadFile(api: ApiClient, path: string, options: UploadOptions = {}): Promise<Upload> {
  const log = options.log ?? (() => undefined);
  const facts = await inspectFile(path, { name: options.name, mime: options.mime });
  log(`${facts.name}: ${facts.size} bytes, ${facts.mime}, sha256 ${facts.checksum}`);
  for (let generation = 1; generation <= MAX_GENERATIONS; generation++) {
    const key = uploadKey(facts, generation);
    const prepared = await api.post<Upload>(
      '/v1/uploads/prepare',
      { name: facts.name, mime: facts.mime, size: facts.size, checksum: facts.checksum, idempotency_key: key },
      { retries: 3 },
    );
    if (prepared.status === 'expired') {
      log(`upload ${prepared.upload_id} expired; starting over with a new key`);
      continue;
    }
    if (prepared.status === 'completed') {
      log(`upload ${prepared.upload_id} was already completed`);
      return prepared;
    }
    const done = await driveUpload(api, facts, prepared, options, log);
    if (done) return done;
  }
  throw new Error(`upload of ${path} did not complete after ${MAX_GENERATIONS} attempts`);
}

/** Sends and completes a prepared upload; undefined when it expired meanwhile. */
async function driveUpload(api: ApiClient, facts: FileFacts, prepared: Upload, options: UploadOptions, log: (l: string) => void): Promise<Upload | undefined> {
  const instructions = prepared.upload;
  let state: Upload = prepared;
  for (let send = 1; send <= MAX_SENDS; send++) {
    if (state.status === 'expired') return undefined;
    if (state.status === 'completed') return state;
    if (state.status === 'prepared' || state.status === 'uploading') {
      if (!instructions) throw new Error(`upload ${prepared.upload_id} has no upload instructions`);
      try {
        state = await putBytes(api, facts, instructions, options.quiet === true);
      } catch (err) {
        if (err instanceof ApiError && (err.code === 'UPLOAD_IN_PROGRESS' || err.code === 'UPLOAD_BUSY')) {
          const wait = (err.retryAfterSeconds ?? 2) * 1000;
          log(`${err.code}: reading the upload again in ${wait / 1000} s`);
          await sleep(wait);
          state = await api.get<Upload>(`/v1/uploads/${encodeURIComponent(prepared.upload_id)}`);
          continue;
        }
        if (err instanceof ApiError && err.code === 'UPLOAD_EXPIRED') return undefined;
        if (err instanceof NetworkError || (err instanceof ApiError && err.status >= 500)) {
          log(`transfer interrupted (${err.message}); re-sending the whole file`);
          await sleep(500 * send);
          state = await api.get<Upload>(`/v1/uploads/${encodeURIComponent(prepared.upload_id)}`);
          continue;
        }
        throw err;
      }
    }
    if (state.status === 'uploaded') {
      try {
        return await api.post<Upload>(`/v1/uploads/${encodeURIComponent(prepared.upload_id)}/complete`, {}, { retries: 3 });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'UPLOAD_CONTENT_MISMATCH') {
          log('the stored content was lost or damaged; re-sending the file');
          state = { ...state, status: 'prepared' };
          continue;
        }
        if (err instanceof ApiError && err.code === 'UPLOAD_EXPIRED') return undefined;
        throw err;
      }
    }
  }
  throw new Error(`upload ${prepared.upload_id} did not complete`);
}

/** PUT the whole file to the prepared URL with the returned headers, counting bytes. */
async function putBytes(api: ApiClient, facts: FileFacts, instructions: NonNullable<Upload['upload']>, quiet: boolean): Promise<Upload> {
  const bar = byteProgress('upload', facts.size, quiet);
  try {
    const stream = createReadStream(facts.path, { highWaterMark: 256 * 1024 });
    stream.on('data', (chunk) => bar.add((chunk as Buffer).length));
    const res = await api.send(instructions.method ?? 'PUT', instructions.url, {
      anonymous: true,
      headers: { ...instructions.headers, 'Content-Type': facts.mime, 'Content-Length': String(facts.size) },
      rawBody: Readable.toWeb(stream) as unknown as ReadableStream,
      duplex: true,
    });
    return (await res.json()) as Upload;
  } finally {
    bar.stop();
  }
}
