import { readStoreContract } from '../testing/contracts/read-store.contract';
import { MemoryReadStore } from './memory-read-store';
import { MongoReadStore } from './mongo-read-store';

readStoreContract('in-memory (embedded, mingo)', async () => ({ store: new MemoryReadStore() }));

const mongoUrl = process.env.MONGO_URL;
if (mongoUrl) {
  readStoreContract(`MongoDB protocol (${mongoUrl.replace(/\/\/[^@/]*@/, '//***@')})`, async () => ({
    store: await MongoReadStore.connect(mongoUrl, process.env.MONGO_DB || 'gensvc_contract'),
  }));
} else {
  describe.skip('ReadStore contract: MongoDB — skipped: MONGO_URL is not set (scripts/test-servers.sh start starts FerretDB; see README "Tests")', () => {
    it('needs MONGO_URL', () => undefined);
  });
}
