import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Gensvc } from '@gensvc/sdk';
import { downloadAsset as download, safeFileName, type Downloaded } from '@gensvc/sdk/node';
import { byteProgress } from './progress.js';

export type { Downloaded };
export { safeFileName };

/** `name`, or `name (2)` etc. when a file of that name exists. */
function freePath(dir: string, name: string): string {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  let candidate = join(dir, name);
  for (let i = 2; existsSync(candidate); i++) candidate = join(dir, `${stem} (${i})${ext}`);
  return candidate;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Downloads an asset through a fresh signed link (`download_url`, no account credential) into
 * `out`: an existing directory (under the asset's download name; a file of that name with the
 * asset's bytes already is kept, another gets ` (2)`), or a file path (never overwritten
 * without `overwrite`). The SDK's `downloadAsset` does the transfer: it goes on from where an
 * interrupted download stopped and checks size and SHA-256.
 */
export async function downloadAsset(api: Gensvc, assetId: string, out: string, options: { quiet?: boolean; overwrite?: boolean } = {}): Promise<Downloaded> {
  const asset = await api.assets.get(assetId);
  let target = out;
  if (existsSync(out) && statSync(out).isDirectory()) {
    const same = join(out, safeFileName(asset.download_name || asset.name));
    if (existsSync(same) && statSync(same).size === asset.size && (await sha256Of(same)) === asset.checksum) {
      return { asset_id: asset.id, path: same, size: asset.size, checksum: asset.checksum };
    }
    target = freePath(out, safeFileName(asset.download_name || asset.name));
  } else if (existsSync(target) && !options.overwrite) {
    throw new Error(`${target} exists (use --overwrite)`);
  }
  const bar = byteProgress('download', asset.size, options.quiet === true);
  let shown = 0;
  try {
    return await download(api, assetId, target, {
      onProgress: (loaded) => {
        if (loaded < shown) {
          bar.reset(); // started over
          shown = 0;
        }
        bar.add(loaded - shown);
        shown = loaded;
      },
    });
  } finally {
    bar.stop();
  }
}
