import { chmodSync, mkdirSync } from 'node:fs';

/**
 * Creates `dir` (and missing parents) with mode 0700 and makes an existing one 0700: the
 * embedded stores' directory (DATA_DIR) is the service's alone, whatever the umask (CONTRACT
 * §17). A directory the process may not change (another owner, a read-only mount) is left
 * as it is. The SQLite files (storage's SqliteDatabase) and blobs (FsBlobStore) are 0600.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700);
}

/** Makes an existing file 0600 (the signing key an earlier version wrote). */
export function keepPrivate(file: string): void {
  tighten(file, 0o600);
}

function tighten(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch {
    /* not ours to change: leave it */
  }
}
