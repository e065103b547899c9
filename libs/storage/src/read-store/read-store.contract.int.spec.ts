import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStoreContract } from '@gensvc/event-sourcing/testing/contracts/read-store.contract';
import { MongoReadStore } from './mongo-read-store';
import { SqliteReadStore } from './sqlite-read-store';

readStoreContract('SQLite (embedded, file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-read-'));
  return { store: SqliteReadStore.open(join(dir, 'read.db')), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

// Against the MongoDB protocol only when MONGO_URL is set (scripts/test-servers.sh start starts FerretDB; see README "Tests").
const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) {
  readStoreContract(`MongoDB protocol (${mongoUrl.replace(/\/\/[^@/]*@/, '//***@')})`, async () => ({
    store: await MongoReadStore.connect(mongoUrl, process.env.MONGO_DB || 'gensvc_contract'),
  }));
}
