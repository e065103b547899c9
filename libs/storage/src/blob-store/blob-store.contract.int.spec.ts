import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobStoreContract } from '@gensvc/blob-store/testing/contracts/blob-store.contract';
import { FsBlobStore } from './fs-blob-store';
import { MinioBlobStore } from './minio-blob-store';

blobStoreContract('files (embedded)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-blobs-'));
  return { store: new FsBlobStore(dir), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

// Against MinIO only when S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and S3_BUCKET are set (scripts/test-servers.sh start starts MinIO; see README "Tests").
const { S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET, S3_REGION } = process.env;
if (S3_ENDPOINT && S3_ACCESS_KEY && S3_SECRET_KEY && S3_BUCKET) {
  blobStoreContract(`MinIO (${S3_ENDPOINT}, bucket ${S3_BUCKET})`, async () => ({
    store: new MinioBlobStore({
      endpoint: S3_ENDPOINT,
      accessKey: S3_ACCESS_KEY,
      secretKey: S3_SECRET_KEY,
      bucket: S3_BUCKET,
      region: S3_REGION || 'us-east-1',
    }),
  }));
}
