/**
 * Node-only helpers (`@gensvc/sdk/node`): files on disk, streamed (constant memory).
 */
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { Gensvc } from './client.js';
import type { Upload } from './types.js';
import { checkSize, detectMime, fetchSender, runUpload, type FileFacts, type UploadOptions } from './upload.js';

const SAMPLE_BYTES = 64 * 1024;

export interface LocalFileFacts extends FileFacts {
  readonly path: string;
}

async function* chunksOf(path: string): AsyncIterable<Uint8Array> {
  for await (const chunk of createReadStream(path)) yield chunk as Buffer;
}

/** SHA-256 of a whole file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of chunksOf(path)) hash.update(chunk);
  return hash.digest('hex');
}

async function head(path: string, bytes: number): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Size, real MIME and SHA-256 of a file on disk. */
export async function inspectFile(path: string, overrides: { name?: string; mime?: string } = {}): Promise<LocalFileFacts> {
  const s = await stat(path);
  if (!s.isFile()) throw new Error(`${path} is not a file`);
  const name = overrides.name ?? basename(path);
  checkSize(path, s.size);
  const [checksum, mime] = await Promise.all([
    sha256File(path),
    overrides.mime ? Promise.resolve(overrides.mime) : detectMime(await head(path, SAMPLE_BYTES), name, s.size, () => chunksOf(path), () => readFile(path, 'utf8')),
  ]);
  return { path, name, size: s.size, mime, checksum };
}

export interface FileUploadOptions extends UploadOptions {
  name?: string;
  mime?: string;
  /** Called with the facts once computed (before prepare). */
  onInspected?: (facts: LocalFileFacts) => void;
}

/** Uploads a file from disk: inspect, prepare, streamed PUT with progress, complete; resumable. */
export async function uploadFile(client: Gensvc, path: string, o: FileUploadOptions = {}): Promise<Upload> {
  const facts = await inspectFile(path, { name: o.name, mime: o.mime });
  o.onInspected?.(facts);
  const send = fetchSender(client, facts.mime, facts.size, () => Readable.toWeb(createReadStream(path, { highWaterMark: 256 * 1024 })) as unknown as ReadableStream<Uint8Array>);
  return runUpload(client, facts, send, o);
}
