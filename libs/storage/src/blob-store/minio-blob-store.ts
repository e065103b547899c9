import { Client, S3Error } from 'minio';
import type { Readable } from 'node:stream';
import { BlobNotFoundError, BlobStore, type BlobStat, type ByteRange } from '@gensvc/blob-store';

export interface MinioBlobStoreOptions {
  /** `http(s)://host:port` of the S3 API. */
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly bucket: string;
  readonly region: string;
  /** Size of the multipart chunks, the most a put holds in memory (default 8 MiB, at least 5 MiB). */
  readonly partSize?: number;
}

const MIN_PART = 5 * 1024 * 1024;
const notFoundCodes = new Set(['NoSuchKey', 'NotFound', 'NoSuchObject']);
const isNotFound = (err: unknown): boolean => err instanceof S3Error && notFoundCodes.has(String(err.code));

/**
 * Production blob store: MinIO (or any S3 API) through the `minio` client, one bucket
 * (created on first use). Puts stream in multipart chunks of `partSize`, so memory stays
 * bounded whatever the object's size; S3 makes an object visible only when its upload
 * completes, so readers never see a partial object.
 */
export class MinioBlobStore extends BlobStore {
  private readonly client: Client;
  private readonly bucket: string;
  private readonly region: string;
  private readonly partSize: number;
  private bucketReady: Promise<void> | undefined;

  constructor(options: MinioBlobStoreOptions) {
    super();
    const url = new URL(options.endpoint);
    const useSSL = url.protocol === 'https:';
    this.client = new Client({
      endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: options.region,
      pathStyle: true,
    });
    this.bucket = options.bucket;
    this.region = options.region;
    this.partSize = Math.max(MIN_PART, options.partSize ?? 8 * 1024 * 1024);
  }

  override async put(key: string, body: Readable, options: { contentType?: string; size?: number } = {}): Promise<{ size: number }> {
    await this.ensureBucket();
    const headers: Record<string, string> = options.contentType ? { 'Content-Type': options.contentType } : {};
    const part = Buffer.allocUnsafe(this.partSize);
    let filled = 0;
    let size = 0;
    let uploadId: string | undefined;
    const etags: { part: number; etag: string }[] = [];
    const flush = async () => {
      uploadId ??= await this.client.initiateNewMultipartUpload(this.bucket, key, headers);
      const partNumber = etags.length + 1;
      const r = await this.client.uploadPart(
        { bucketName: this.bucket, objectName: key, uploadID: uploadId, partNumber, headers: { 'Content-Length': String(filled) } },
        part.subarray(0, filled),
      );
      etags.push({ part: partNumber, etag: r.etag });
      filled = 0;
    };
    try {
      for await (const raw of body) {
        let chunk: Buffer = typeof raw === 'string' ? Buffer.from(raw) : (raw as Buffer);
        size += chunk.length;
        while (chunk.length) {
          const n = Math.min(chunk.length, this.partSize - filled);
          chunk.copy(part, filled, 0, n);
          filled += n;
          chunk = chunk.subarray(n);
          if (filled === this.partSize) await flush();
        }
      }
      if (uploadId === undefined) {
        // Small object: one PUT of the bytes read so far.
        await this.client.putObject(this.bucket, key, part.subarray(0, filled), filled, headers);
      } else {
        if (filled > 0) await flush();
        await this.client.completeMultipartUpload(this.bucket, key, uploadId, etags);
      }
    } catch (err) {
      if (uploadId !== undefined) await this.client.abortMultipartUpload(this.bucket, key, uploadId).catch(() => undefined);
      throw err;
    }
    return { size };
  }

  override async get(key: string, range?: ByteRange): Promise<Readable> {
    await this.ensureBucket();
    try {
      return range
        ? await this.client.getPartialObject(this.bucket, key, range.start, range.end - range.start + 1)
        : await this.client.getObject(this.bucket, key);
    } catch (err) {
      if (isNotFound(err)) throw new BlobNotFoundError(key);
      throw err;
    }
  }

  override async stat(key: string): Promise<BlobStat | null> {
    await this.ensureBucket();
    try {
      const s = await this.client.statObject(this.bucket, key);
      return { size: s.size, lastModified: s.lastModified, etag: s.etag };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  override async delete(key: string): Promise<void> {
    await this.ensureBucket();
    try {
      await this.client.removeObject(this.bucket, key);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  override async ping(): Promise<void> {
    await this.client.bucketExists(this.bucket);
  }

  override async close(): Promise<void> {}

  /** Creates the bucket once per process when it does not exist. */
  private ensureBucket(): Promise<void> {
    this.bucketReady ??= (async () => {
      if (await this.client.bucketExists(this.bucket)) return;
      try {
        await this.client.makeBucket(this.bucket, this.region);
      } catch (err) {
        const code = err instanceof S3Error ? String(err.code) : '';
        if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
      }
    })().catch((err: unknown) => {
      this.bucketReady = undefined;
      throw err;
    });
    return this.bucketReady;
  }
}
