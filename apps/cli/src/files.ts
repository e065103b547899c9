import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { TextDecoder } from 'node:util';

/** Largest upload the service accepts (spec: 1 byte to 64 MiB). */
export const MAX_UPLOAD_BYTES = 67_108_864;
const SAMPLE_BYTES = 64 * 1024;

export interface FileFacts {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  /** The real type from the file's signature (or, for text, from its content). */
  readonly mime: string;
  /** SHA-256 of the bytes, lowercase hex. */
  readonly checksum: string;
}

/** SHA-256 of a whole file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function head(path: string, bytes: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Whether the whole file is UTF-8 (streamed, constant memory). */
async function isUtf8(path: string): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(path)) decoder.decode(chunk as Buffer, { stream: true });
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/**
 * The real MIME type: the file signature (file-type, as the service checks it); files
 * without a signature are `application/json` when they parse as JSON, `text/plain` when
 * they are UTF-8, else `application/octet-stream` (which the service refuses).
 */
export async function detectMime(path: string, size: number): Promise<string> {
  const { fileTypeFromBuffer } = await import('file-type/core');
  const sample = await head(path, SAMPLE_BYTES);
  const found = await fileTypeFromBuffer(sample);
  if (found) return found.mime === 'audio/x-wav' || found.mime === 'audio/vnd.wave' ? 'audio/wav' : found.mime;
  if (!(await isUtf8(path))) return 'application/octet-stream';
  const jsonLike = extname(path).toLowerCase() === '.json' || /^\s*[[{]/.test(sample.toString('utf8', 0, Math.min(sample.length, 64)));
  if (jsonLike && size <= 16 * 1024 * 1024) {
    try {
      JSON.parse(await readFile(path, 'utf8'));
      return 'application/json';
    } catch {
      /* not JSON: plain text */
    }
  }
  return 'text/plain';
}

/** Size, real MIME and SHA-256 of a file to upload (the client computes them first). */
export async function inspectFile(path: string, overrides: { name?: string; mime?: string } = {}): Promise<FileFacts> {
  const s = await stat(path);
  if (!s.isFile()) throw new Error(`${path} is not a file`);
  if (s.size < 1 || s.size > MAX_UPLOAD_BYTES) throw new Error(`${path}: an upload must be 1 byte to 64 MiB (this file has ${s.size} bytes)`);
  const [checksum, mime] = await Promise.all([sha256File(path), overrides.mime ? Promise.resolve(overrides.mime) : detectMime(path, s.size)]);
  return { path, name: overrides.name ?? basename(path), size: s.size, mime, checksum };
}

/**
 * The idempotency key of one upload of one file: derived from its checksum (and name, type
 * and size, which the service compares under the key), so re-running the CLI after an
 * interruption resumes the same upload. `generation` > 1 starts over after an expiry.
 */
export function uploadKey(facts: Pick<FileFacts, 'name' | 'mime' | 'size' | 'checksum'>, generation = 1): string {
  const digest = createHash('sha256').update(`${facts.checksum}\n${facts.size}\n${facts.mime}\n${facts.name}`).digest('hex');
  return `gensvc-cli-${facts.checksum.slice(0, 16)}-${digest.slice(0, 32)}${generation > 1 ? `-g${generation}` : ''}`;
}
