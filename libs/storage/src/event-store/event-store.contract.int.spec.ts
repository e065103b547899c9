import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventStoreContract } from '@gensvc/event-sourcing/testing/contracts/event-store.contract';
import { EsdbEventStore } from './esdb-event-store';
import { SqliteEventStore } from './sqlite-event-store';

/** The embedded store: every store the suite opens is another connection to one file. */
eventStoreContract('SQLite (embedded, one file shared by two connections)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-es-'));
  return {
    fresh: true,
    open: async (schemas) => new SqliteEventStore(join(dir, 'events.db'), schemas),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

// Against EventStoreDB only when EVENTSTORE_URL is set (docker compose up -d eventstore; see README "Tests").
const esdbUrl = process.env.EVENTSTORE_URL;
if (esdbUrl) {
  eventStoreContract(`EventStoreDB (${esdbUrl})`, async () => ({
    fresh: false,
    open: async (schemas) => new EsdbEventStore(esdbUrl, schemas),
  }));
}
