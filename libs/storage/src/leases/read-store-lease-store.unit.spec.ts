import { leaseStoreContract } from '@gensvc/event-sourcing/testing/contracts/lease-store.contract';
import { InMemoryReadStore } from '@gensvc/event-sourcing/testing/in-memory-read-store';
import { ReadStoreLeaseStore } from './read-store-lease-store';

/** The leases that unit specs of handlers take: documents of the in-memory read store. */
leaseStoreContract('read store (the event-sourcing test kit’s in-memory store, one process)', async () => {
  let t = Date.parse('2026-06-01T00:00:00Z');
  const store = new InMemoryReadStore();
  const now = () => t;
  return { a: new ReadStoreLeaseStore(store, 'leases', now), b: new ReadStoreLeaseStore(store, 'leases', now), advance: (ms) => void (t += ms) };
});
