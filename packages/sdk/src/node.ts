/**
 * Node-only helpers (`@gensvc/sdk/node`): files on disk, streamed (constant memory).
 */
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { Gensvc } from './client.js';
import type { Upload } from './types.js';
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
    scope: 'create',
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
