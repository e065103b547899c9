import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, createAccount } from './support/accounts';
import { startTestApp } from './support/test-app';

/** Every path under `dir` (itself included) with its permission bits. */
function modes(dir: string): { path: string; type: 'dir' | 'file'; mode: string }[] {
  const out: { path: string; type: 'dir' | 'file'; mode: string }[] = [];
  const walk = (p: string, rel: string) => {
    const s = statSync(p);
    out.push({ path: rel || '.', type: s.isDirectory() ? 'dir' : 'file', mode: (s.mode & 0o777).toString(8) });
    if (s.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e), rel ? `${rel}/${e}` : e);
  };
  walk(dir, '');
  return out;
}

describe('the embedded data directory is the service\'s alone: directories 0700, files 0600', () => {
  let parent: string;
  const umask = process.umask();
  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), 'gensvc-modes-'));
    process.umask(0o022); // the usual umask, under which files would be world-readable
  });
  afterAll(() => {
    process.umask(umask);
    rmSync(parent, { recursive: true, force: true });
  });

  it('creates DATA_DIR, the databases (with their WAL files), the signing key and the blobs private', async () => {
    const dataDir = join(parent, 'fresh', 'data');
    const t = await startTestApp({ dataDir });
    try {
      const acc = await createAccount(t);
      await t.http().post('/v1/uploads').set(bearer(acc)).set('Content-Type', 'text/plain').set('X-Filename', 'a.txt').send('hello').expect(201);
      await t.http().get('/v1/wallet').set(bearer(acc)).expect(200);
      const all = modes(dataDir);
      expect(all.map((e) => e.path)).toEqual(expect.arrayContaining(['events.db', 'read.db', 'leases.db', 'signing.key', 'blobs', 'blobs/assets']));
      expect(all.some((e) => e.path.endsWith('-wal'))).toBe(true);
      expect(all.some((e) => e.path.startsWith('blobs/assets/ast_'))).toBe(true);
      expect(all.filter((e) => e.mode !== (e.type === 'dir' ? '700' : '600'))).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('tightens a data directory an earlier version left readable', async () => {
    const dataDir = join(parent, 'old', 'data');
    const first = await startTestApp({ dataDir });
    const acc = await createAccount(first);
    await first.http().post('/v1/uploads').set(bearer(acc)).set('Content-Type', 'text/plain').set('X-Filename', 'a.txt').send('hello').expect(201);
    await first.close();
    for (const e of modes(dataDir)) if (!e.path.startsWith('blobs/')) chmodSync(join(dataDir, e.path), e.type === 'dir' ? 0o755 : 0o644);
    mkdirSync(join(dataDir, 'blobs'), { recursive: true });
    writeFileSync(join(dataDir, 'read.db-journal'), '');
    chmodSync(join(dataDir, 'read.db-journal'), 0o644);
    const again = await startTestApp({ dataDir });
    try {
      const top = modes(dataDir).filter((e) => !e.path.startsWith('blobs/'));
      expect(top.filter((e) => e.mode !== (e.type === 'dir' ? '700' : '600'))).toEqual([]);
    } finally {
      await again.close();
    }
  });
});
