import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobNotFoundError, BlobStore, type BlobStat, type ByteRange } from '@gensvc/blob-store';

/**
 * Embedded blob store: one file per key under a directory. Writes go to a temporary file
 * that is fsynced and renamed into place, so a reader never sees a partial object. Files are
 * 0600 and directories 0700 (the service's alone, whatever the umask).
 */
export class FsBlobStore extends BlobStore {
  private readonly root: string;

  constructor(root: string) {
    super();
    this.root = resolve(root);
  }

  override async put(key: string, body: Readable): Promise<{ size: number }> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    const tmpDir = join(this.root, '.tmp');
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    const tmp = join(tmpDir, randomUUID());
    let size = 0;
    body.on('data', (chunk: Buffer) => (size += chunk.length));
    const out = createWriteStream(tmp, { flush: true, mode: 0o600 });
    try {
      await pipeline(body, out);
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return { size };
  }

  override async get(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.pathOf(key);
    const s = await this.stat(key);
    if (!s) throw new BlobNotFoundError(key);
    return createReadStream(path, range ? { start: range.start, end: range.end } : {});
  }

  override async stat(key: string): Promise<BlobStat | null> {
    try {
      const s = await stat(this.pathOf(key));
      return { size: s.size, lastModified: s.mtime };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  override async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  override async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
  }

  override async close(): Promise<void> {}

  private pathOf(key: string): string {
    if (!/^[A-Za-z0-9._\/-]{1,512}$/.test(key) || key.split('/').some((p) => p === '' || p === '.' || p === '..')) {
      throw new Error(`invalid blob key: ${key}`);
    }
    const p = resolve(this.root, key);
    if (!p.startsWith(this.root + sep)) throw new Error(`invalid blob key: ${key}`);
    return p;
  }
}
