import { ApiError, NetworkError, apiError, errorFromResponse } from './errors.js';
import type { Gensvc, RequestBody } from './client.js';
import type { Upload } from './types.js';

/** Largest upload the service accepts (1 byte to 64 MiB). */
export const MAX_UPLOAD_BYTES = 67_108_864;
const SAMPLE_BYTES = 64 * 1024;
/** Keys tried for one file: each expired upload, and each completed one whose asset was deleted since, moves on to the next. */
const MAX_GENERATIONS = 20;
const MAX_SENDS = 4;

/** What the client computes before announcing a file. */
export interface FileFacts {
  readonly name: string;
  readonly size: number;
  /** The real type, from the file's signature (or, for text, its content). */
  readonly mime: string;
  /** SHA-256 of the bytes, lowercase hex. */
  readonly checksum: string;
}

export interface UploadProgress {
  /** Bytes sent so far in this transfer (back to 0 when a transfer is re-sent). */
  readonly loaded: number;
  readonly total: number;
}

export interface UploadOptions {
  /** Called as bytes go out. */
  onProgress?: (progress: UploadProgress) => void;
  /** A line about what happens (resume, re-send, waiting); never carries credentials. */
  onEvent?: (message: string) => void;
  /**
   * The idempotency key of this file's upload. Default: derived from the content, name and
   * type, so uploading the same file again resumes (or returns) the same upload.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface BlobUploadOptions extends UploadOptions {
  /** File name (default: the File's name). */
  name?: string;
  /** Override the detected type (the service still checks the bytes). */
  mime?: string;
  /** Called with the size, type and SHA-256 once computed (before prepare). */
  onInspected?: (facts: FileFacts) => void;
}

/** Sends one transfer of the bytes to a prepared upload; returns the upload after the write. */
export type SendBytes = (instructions: NonNullable<Upload['upload']>, onProgress: (loaded: number) => void, signal?: AbortSignal) => Promise<Upload>;

const hex = (buf: ArrayBuffer) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SHA-256 of bytes, lowercase hex (Web Crypto: Node 20+ and browsers). */
export async function sha256Hex(data: Uint8Array | ArrayBuffer | string): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return hex(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

/**
 * The real MIME type: the signature (file-type, as the service checks it); files without a
 * signature are `application/json` when they parse as JSON, `text/plain` when they are UTF-8,
 * else `application/octet-stream` (which the service refuses).
 */
export async function detectMime(sample: Uint8Array, name: string, size: number, chunks: () => AsyncIterable<Uint8Array>, text: () => Promise<string>): Promise<string> {
  const { fileTypeFromBuffer } = await import('file-type/core');
  const found = await fileTypeFromBuffer(sample);
  if (found) return found.mime === 'audio/x-wav' || found.mime === 'audio/vnd.wave' ? 'audio/wav' : found.mime;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of chunks()) decoder.decode(chunk, { stream: true });
    decoder.decode();
  } catch {
    return 'application/octet-stream';
  }
  const head = new TextDecoder().decode(sample.subarray(0, 64));
  if ((/\.json$/i.test(name) || /^\s*[[{]/.test(head)) && size <= 16 * 1024 * 1024) {
    try {
      JSON.parse(await text());
      return 'application/json';
    } catch {
      /* not JSON: plain text */
    }
  }
  return 'text/plain';
}

/**
 * The idempotency key of one upload of one file: derived from its checksum, size, type and
 * name (which the service compares under the key), so a re-run resumes the same upload.
 * `generation` > 1 starts over after an expiry.
 */
export async function uploadKey(facts: Pick<FileFacts, 'name' | 'mime' | 'size' | 'checksum'>, generation = 1): Promise<string> {
  const digest = await sha256Hex(`${facts.checksum}\n${facts.size}\n${facts.mime}\n${facts.name}`);
  return `gensvc-up-${facts.checksum.slice(0, 16)}-${digest.slice(0, 32)}${generation > 1 ? `-g${generation}` : ''}`;
}

/** Size, real MIME and SHA-256 of a Blob (or bytes). */
export async function inspectBlob(blob: Blob, name: string, mime?: string): Promise<FileFacts> {
  checkSize(name, blob.size);
  const bytes = new Uint8Array(await blob.arrayBuffer());
  const checksum = await sha256Hex(bytes);
  const type =
    mime ??
    (await detectMime(
      bytes.subarray(0, SAMPLE_BYTES),
      name,
      bytes.length,
      async function* () {
        yield bytes;
      },
      async () => new TextDecoder().decode(bytes),
    ));
  return { name, size: blob.size, mime: type, checksum };
}

export function checkSize(name: string, size: number): void {
  if (size < 1 || size > MAX_UPLOAD_BYTES) throw new RangeError(`${name}: an upload must be 1 byte to 64 MiB (this file has ${size} bytes)`);
}

/** The upload object without its upload instructions (they carry the upload token). */
export function withoutUploadToken(u: Upload): Omit<Upload, 'upload'> {
  const { upload: _token, ...rest } = u;
  return rest;
}

/**
 * prepare / PUT / complete for one file, with resume: the key is stable, so an earlier
 * interrupted run's upload is found again; an interrupted transfer is re-sent whole; an
 * upload that expired, or whose asset was deleted, starts over under the next key; busy
 * answers are waited out.
 */
export async function runUpload(client: Gensvc, facts: FileFacts, send: SendBytes, o: UploadOptions = {}): Promise<Upload> {
  const event = o.onEvent ?? (() => undefined);
  for (let generation = 1; generation <= MAX_GENERATIONS; generation++) {
    const key = o.idempotencyKey ? `${o.idempotencyKey}${generation > 1 ? `-g${generation}` : ''}` : await uploadKey(facts, generation);
    const prepared = await client.uploads.prepare(
      { name: facts.name, mime: facts.mime, size: facts.size, checksum: facts.checksum, idempotency_key: key },
      { signal: o.signal },
    );
    if (prepared.status === 'expired') {
      event(`upload ${prepared.upload_id} expired; starting over under a new key`);
      continue;
    }
    if (prepared.status === 'completed') {
      // A completed upload answers with its asset while the asset exists; once deleted, the file is uploaded again as a new asset.
      if (!prepared.asset) {
        event(`the asset of upload ${prepared.upload_id} was deleted; uploading the file again under a new key`);
        continue;
      }
      event(`upload ${prepared.upload_id} was already completed`);
      return prepared;
    }
    const done = await drive(client, facts, prepared, send, o, event);
    if (done) return done;
  }
  throw new Error(`the upload of ${facts.name} did not complete after ${MAX_GENERATIONS} attempts`);
}

async function drive(client: Gensvc, facts: FileFacts, prepared: Upload, send: SendBytes, o: UploadOptions, event: (m: string) => void): Promise<Upload | undefined> {
  const instructions = prepared.upload;
  let state: Upload = prepared;
  for (let attempt = 1; attempt <= MAX_SENDS; attempt++) {
    if (state.status === 'expired') return undefined;
    if (state.status === 'completed') return state;
    if (state.status === 'prepared' || state.status === 'uploading') {
      if (!instructions) throw new Error(`upload ${prepared.upload_id} has no upload instructions`);
      try {
        o.onProgress?.({ loaded: 0, total: facts.size });
        state = await send(instructions, (loaded) => o.onProgress?.({ loaded, total: facts.size }), o.signal);
      } catch (err) {
        if (o.signal?.aborted) throw err;
        if (err instanceof ApiError && (err.code === 'UPLOAD_IN_PROGRESS' || err.code === 'UPLOAD_BUSY')) {
          const wait = (err.retryAfter ?? 2) * 1000;
          event(`${err.code}: reading the upload again in ${wait / 1000} s`);
          await sleep(wait);
          state = await client.uploads.get(prepared.upload_id, { signal: o.signal });
          continue;
        }
        if (err instanceof ApiError && err.code === 'UPLOAD_EXPIRED') return undefined;
        if (err instanceof NetworkError || (err instanceof ApiError && err.status >= 500)) {
          event(`transfer interrupted (${err.message}); re-sending the whole file`);
          await sleep(500 * attempt);
          state = await client.uploads.get(prepared.upload_id, { signal: o.signal });
          continue;
        }
        throw err;
      }
    }
    if (state.status === 'uploaded') {
      try {
        return await client.uploads.complete(prepared.upload_id, { signal: o.signal });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'UPLOAD_CONTENT_MISMATCH') {
          event('the stored content was lost or damaged; re-sending the file');
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

/** A stream of `source` that reports how many bytes were read. */
export function countingStream(source: ReadableStream<Uint8Array>, onProgress: (loaded: number) => void): ReadableStream<Uint8Array> {
  let loaded = 0;
  return source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        onProgress(loaded);
        controller.enqueue(chunk);
      },
    }),
  );
}

/** PUT with fetch and a streamed, counted body (Node; browsers use XMLHttpRequest for progress). */
export function fetchSender(client: Gensvc, mime: string, size: number, open: () => ReadableStream<Uint8Array>): SendBytes {
  return async (instructions, onProgress, signal) => {
    const res = await client.fetch(instructions.method ?? 'PUT', instructions.url, {
      anonymous: true,
      headers: { ...instructions.headers, 'Content-Type': mime, 'Content-Length': String(size) },
      rawBody: countingStream(open(), onProgress) as unknown as RequestBody,
      duplex: true,
      signal,
    });
    return (await res.json()) as Upload;
  };
}

/** The parts of XMLHttpRequest the browser sender uses. */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  getResponseHeader(name: string): string | null;
  send(body: Blob): void;
  abort(): void;
  status: number;
  responseText: string;
  upload: { onprogress: ((e: { loaded: number }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}

/** PUT with XMLHttpRequest (browsers: upload progress events without streaming request bodies). */
function xhrSender(Xhr: new () => Xhr, blob: Blob, mime: string): SendBytes {
  return (instructions, onProgress, signal) =>
    new Promise<Upload>((resolve, reject) => {
      const xhr = new Xhr();
      xhr.open(instructions.method ?? 'PUT', instructions.url);
      for (const [k, v] of Object.entries({ ...instructions.headers, 'Content-Type': mime })) xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => onProgress(e.loaded);
      const onAbort = () => xhr.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      xhr.onload = () => {
        signal?.removeEventListener('abort', onAbort);
        if (xhr.status >= 200 && xhr.status < 300) {
          try {
            resolve(JSON.parse(xhr.responseText) as Upload);
          } catch (err) {
            reject(err);
          }
          return;
        }
        const headers = new Headers();
        for (const h of ['retry-after', 'x-request-id']) {
          const v = xhr.getResponseHeader(h);
          if (v !== null) headers.set(h, v);
        }
        errorFromResponse(new Response(xhr.responseText, { status: xhr.status, headers })).then(reject, () =>
          reject(apiError(xhr.status, `HTTP_${xhr.status}`, 'upload refused', undefined)),
        );
      };
      xhr.onerror = () => reject(new NetworkError(`PUT ${new URL(instructions.url).pathname}: connection failed`));
      xhr.onabort = () => reject(signal?.reason ?? new Error('aborted'));
      xhr.send(blob);
    });
}

/** `client.uploads.upload(...)`: a Blob, File or bytes, in any runtime. */
export async function uploadBlob(client: Gensvc, data: Blob | Uint8Array | ArrayBuffer, o: BlobUploadOptions): Promise<Upload> {
  const blob = data instanceof Blob ? data : new Blob([data as Uint8Array<ArrayBuffer>]);
  const name = o.name ?? (typeof File !== 'undefined' && data instanceof File ? data.name : undefined);
  if (!name) throw new TypeError('uploads.upload: a name is needed (options.name)');
  const facts = await inspectBlob(blob, name, o.mime);
  o.onInspected?.(facts);
  const Xhr = (globalThis as { XMLHttpRequest?: new () => Xhr }).XMLHttpRequest;
  const send = Xhr ? xhrSender(Xhr, blob, facts.mime) : fetchSender(client, facts.mime, facts.size, () => blob.stream() as ReadableStream<Uint8Array>);
  return runUpload(client, facts, send, o);
}
