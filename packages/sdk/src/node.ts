/**
 * Node-only helpers (`@gensvc/sdk/node`): files on disk, streamed (constant memory).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createHash } from 'node:crypto';
import type { Gensvc } from './client.js';
import { ApiError, DownloadIntegrityError, NetworkError } from './errors.js';
import type { Asset, Upload } from './types.js';
import { document as servedDocument } from './generated/document.js';
import type { JsonSchema, OpenApiDocument } from './openapi-document.js';
import { ToolInputError, inlineSchema, type ToolContext, type ToolDefinition } from './tools.js';
import { checkSize, detectMime, fetchSender, runUpload, withoutUploadToken, type FileFacts, type UploadOptions } from './upload.js';

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

export interface DownloadOptions {
  /** Called as bytes arrive (`loaded` counts what an earlier, interrupted download left too). */
  onProgress?: (loaded: number, total: number) => void;
  /** Attempts after a connection that broke mid-way (each continues where it stopped); default 3. */
  maxRetries?: number;
  signal?: AbortSignal;
}

export interface Downloaded {
  asset_id: string;
  path: string;
  size: number;
  checksum: string;
}

/** A file name safe to create from an asset's name: no directories, no control characters, not empty. */
export function safeFileName(name: string): string {
  const base = basename(name.replace(/\\/g, '/')).replace(/[\x00-\x1f\x7f<>:"|?*]/g, '_').trim();
  return base && base !== '.' && base !== '..' ? base : 'download';
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}

/**
 * Downloads an asset through a fresh signed link (no account credential) to `dest` (a file
 * path, or an existing directory: then under the asset's download name). Bytes gather in
 * `<dest>.<checksum prefix>.part`; a download interrupted in this call or an earlier one goes
 * on from where it stopped (`Range` with `If-Range` on the asset's ETag); expired links are
 * fetched again once. The file is checked against the asset's size and SHA-256 before it is
 * moved into place (a mismatch starts over once, then throws DownloadIntegrityError).
 */
export async function downloadAsset(client: Gensvc, assetId: string, dest: string, o: DownloadOptions = {}): Promise<Downloaded> {
  let asset: Asset = await client.assets.get(assetId, { signal: o.signal });
  const target = (await stat(dest).catch(() => undefined))?.isDirectory() ? join(dest, safeFileName(asset.download_name || asset.name)) : dest;
  const part = `${target}.${asset.checksum.slice(0, 16)}.part`;
  const maxRetries = o.maxRetries ?? 3;
  let failures = 0;
  let refreshed = false;
  let restarted = false;
  for (;;) {
    let offset = (await sizeOf(part)) ?? 0;
    if (offset > asset.size) {
      await rm(part, { force: true });
      offset = 0;
    }
    if (offset < asset.size) {
      try {
        await fetchInto(client, asset, part, offset, o);
      } catch (err) {
        if (o.signal?.aborted) throw err;
        if (err instanceof ApiError && err.status === 416) {
          await rm(part, { force: true });
          continue;
        }
        if (err instanceof ApiError && (err.status === 403 || err.status === 404) && !refreshed) {
          refreshed = true; // the links expired: fresh ones, once
          asset = await client.assets.get(assetId, { signal: o.signal });
          continue;
        }
        if (!(err instanceof ApiError) && failures < maxRetries) {
          failures++; // the body broke off: go on from what arrived
          await new Promise((r) => setTimeout(r, 250 * 2 ** failures));
          continue;
        }
        throw err;
      }
    }
    if ((await sizeOf(part)) === asset.size && (await sha256File(part)) === asset.checksum) break;
    await rm(part, { force: true }); // other bytes than the asset's: once more from the start
    if (restarted) throw new DownloadIntegrityError(`asset ${asset.id}: the downloaded bytes do not match its size and SHA-256`);
    restarted = true;
  }
  await rename(part, target);
  return { asset_id: asset.id, path: target, size: asset.size, checksum: asset.checksum };
}

/** One GET of the asset's bytes from `offset` on, appended to `part`. */
async function fetchInto(client: Gensvc, asset: Asset, part: string, offset: number, o: DownloadOptions): Promise<void> {
  const headers: Record<string, string> = { Accept: '*/*', ...(offset ? { Range: `bytes=${offset}-`, 'If-Range': `"${asset.checksum}"` } : {}) };
  const res = await client.fetch('GET', asset.download_url, { anonymous: true, headers, signal: o.signal });
  let start = 0;
  if (res.status === 206) {
    const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.headers.get('content-range') ?? '');
    if (!m || Number(m[1]) !== offset) throw new NetworkError(`unexpected Content-Range ${res.headers.get('content-range')} for offset ${offset}`);
    start = offset;
  }
  if (!res.body) throw new NetworkError('the download has no body');
  let loaded = start;
  o.onProgress?.(loaded, asset.size);
  const count = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      loaded += chunk.length;
      o.onProgress?.(loaded, asset.size);
      cb(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(res.body as unknown as NodeReadableStream), count, createWriteStream(part, { flags: start ? 'a' : 'w' }));
}

/**
 * `assets.upload.file {path}`: a tool for local agents only (it reads the local disk): inspect,
 * prepare, PUT, complete in one call, reporting byte progress when asked. A repeat for the same
 * file resumes or returns the same upload.
 */
export function uploadFileTool(doc: OpenApiDocument = servedDocument): ToolDefinition {
  const upload = inlineSchema(doc, { $ref: '#/components/schemas/Upload' }) as JsonSchema & { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
  // The answer leaves out the upload instructions (the one-file credential is of no use any more).
  const { upload: _instructions, ...properties } = upload.properties;
  return {
    name: 'assets.upload.file',
    description:
      'Upload a local file (path on this machine) as an asset: computes size, real MIME type and SHA-256, then prepares, sends the bytes and completes. Returns the completed upload with its asset_id. Calling it again for the same file resumes or returns the same upload.',
    scopes: ['create'],
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1, description: 'the file path (absolute, or relative to the working directory of this server)' } },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: { ...upload, properties },
    annotations: { title: 'Upload a local file', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(client: Gensvc, args: Record<string, unknown>, context: ToolContext) {
      const unknown = Object.keys(args).filter((k) => k !== 'path');
      if (unknown.length) throw new ToolInputError(`unknown arguments: ${unknown.join(', ')}`);
      if (typeof args.path !== 'string' || !args.path) throw new ToolInputError('missing argument: path');
      let lastReported = -1;
      const done = await uploadFile(client, resolve(args.path), {
        signal: context.signal,
        onProgress: context.progress
          ? ({ loaded, total }) => {
              const percent = Math.floor((loaded / total) * 100);
              if (percent === lastReported) return;
              lastReported = percent;
              void context.progress?.(loaded, total, `${percent}% of ${total} bytes`);
            }
          : undefined,
      });
      return withoutUploadToken(done) as Record<string, unknown>;
    },
  };
}
