import { createHash } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Gensvc } from '@gensvc/sdk';
import { byteProgress } from './progress.js';

export interface Downloaded {
  asset_id: string;
  path: string;
  size: number;
  checksum: string;
}

/** A file name safe to create: no directories, no control characters, not empty. */
export function safeFileName(name: string): string {
  const base = basename(name.replace(/\\/g, '/')).replace(/[\x00-\x1f\x7f<>:"|?*]/g, '_').trim();
  return base && base !== '.' && base !== '..' ? base : 'download';
}

/** `name`, or `name (2)` etc. when a file of that name exists. */
function freePath(dir: string, name: string): string {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  let candidate = join(dir, name);
  for (let i = 2; existsSync(candidate); i++) candidate = join(dir, `${stem} (${i})${ext}`);
  return candidate;
}

/**
 * Downloads an asset through a fresh signed link (`download_url`, no account credential)
 * into `out` (a directory, or a file path), checking size and SHA-256 against the asset.
 */
export async function downloadAsset(api: Gensvc, assetId: string, out: string, options: { quiet?: boolean; overwrite?: boolean } = {}): Promise<Downloaded> {
  const asset = await api.assets.get(assetId);
  const isDir = existsSync(out) && (await stat(out)).isDirectory();
  const target = isDir ? freePath(out, safeFileName(asset.download_name || asset.name)) : out;
  if (!isDir && existsSync(target) && !options.overwrite) throw new Error(`${target} exists (use --overwrite)`);
  const res = await api.fetch('GET', asset.download_url, { anonymous: true, headers: { Accept: '*/*' } });
  if (!res.body) throw new Error('the download has no body');
  const temp = join(dirname(target), `.${basename(target)}.part-${process.pid}`);
  const hash = createHash('sha256');
  let size = 0;
  const bar = byteProgress('download', asset.size, options.quiet === true);
  const count = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      size += chunk.length;
      bar.add(chunk.length);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), count, createWriteStream(temp, { flags: 'wx' }));
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  } finally {
    bar.stop();
  }
  const checksum = hash.digest('hex');
  if (size !== asset.size || checksum !== asset.checksum) {
    await rm(temp, { force: true });
    throw new Error(`download of ${assetId} does not match the asset (size ${size}/${asset.size}, sha256 ${checksum}/${asset.checksum})`);
  }
  await rename(temp, target);
  return { asset_id: asset.id, path: target, size, checksum };
}
