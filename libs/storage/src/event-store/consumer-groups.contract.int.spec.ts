import type { EventStoreDBClient } from '@eventstore/db-client';
import { consumerGroupsContract } from '@gensvc/event-sourcing/testing/contracts/consumer-groups.contract';
import { EsdbPersistentSubscriptionsModel } from '@gensvc/event-sourcing/testing/esdb-persistent-subscriptions-model';
import type { ConsumerGroups } from '@gensvc/event-sourcing';
import { EsdbConsumerGroups } from './esdb-consumer-groups';
import { EsdbEventStore } from './esdb-event-store';

/** The adapter over the in-process model of persistent subscriptions (not EventStoreDB itself). */
consumerGroupsContract('EventStoreDB persistent subscriptions, in-process model', async () => {
  const model = new EsdbPersistentSubscriptionsModel({ systemEventsEvery: 5 });
  const events = new EsdbEventStore(model.client());
  const clients = new Map<ConsumerGroups, EventStoreDBClient>();
  return {
    events,
    open: async () => {
      const client = model.client();
      const groups = new EsdbConsumerGroups(client, undefined, 100);
      clients.set(groups, client);
      return groups;
    },
    kill: async (groups) => model.crash(clients.get(groups)!),
    cleanup: async () => {
      await events.close();
      model.stop();
    },
  };
});

// Against EventStoreDB only when EVENTSTORE_URL is set (docker compose up -d eventstore; see README "Tests").
const esdbUrl = process.env.EVENTSTORE_URL;
if (esdbUrl) {
  consumerGroupsContract(`EventStoreDB (${esdbUrl})`, async () => {
    const events = new EsdbEventStore(esdbUrl);
    return { events, open: async () => new EsdbConsumerGroups(esdbUrl), cleanup: () => events.close() };
  });
}
