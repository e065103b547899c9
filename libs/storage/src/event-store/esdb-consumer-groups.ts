import {
  EventStoreDBClient,
  NotFoundError,
  PARK,
  PersistentSubscriptionDoesNotExistError,
  PersistentSubscriptionExistsError,
  RETRY,
  ROUND_ROBIN,
  START,
  eventTypeFilter,
  persistentSubscriptionToAllSettingsFromDefaults,
  type PersistentSubscriptionToAll,
  type PersistentSubscriptionToAllResolvedEvent,
  type PersistentSubscriptionToAllSettings,
} from '@eventstore/db-client';
import { ConsumerGroups, type ConsumeOptions, type ConsumerGroupSpec, type GroupConsumer, type GroupMessage } from '@gensvc/event-sourcing';
import { eventSchemas, type EventSchemas } from '@gensvc/kernel';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The settings a spec asks for; the rest are EventStoreDB's defaults. */
function settingsOf(spec: ConsumerGroupSpec): PersistentSubscriptionToAllSettings {
  return persistentSubscriptionToAllSettingsFromDefaults({
    startFrom: START,
    messageTimeout: spec.messageTimeoutMs,
    maxRetryCount: spec.maxRetryCount,
    consumerStrategyName: ROUND_ROBIN,
    resolveLinkTos: false,
  });
}

/**
 * Competing consumers on EventStoreDB: one persistent subscription to `$all` per group,
 * filtered on the server by event type (`eventTypeFilter` with an exact-match regex), read
 * from the start of the log, dispatched round robin. Needs EventStoreDB 21.10 or later
 * (persistent subscriptions to `$all`). The filter cannot change after creation: a group
 * that should receive other event types needs a new name.
 */
export class EsdbConsumerGroups extends ConsumerGroups {
  private readonly client: EventStoreDBClient;
  private readonly consumers = new Set<GroupConsumer>();
  private closed = false;

  /** `connection`: an EventStoreDB connection string (or a client, for tests). */
  constructor(
    connection: string | EventStoreDBClient,
    private readonly schemas: EventSchemas = eventSchemas,
    private readonly reconnectMs = 1000,
  ) {
    super();
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  }

  override async ensure(spec: ConsumerGroupSpec): Promise<void> {
    const wanted = settingsOf(spec);
    let current: PersistentSubscriptionToAllSettings | undefined;
    try {
      current = (await this.client.getPersistentSubscriptionToAllInfo(spec.group)).settings;
    } catch (err) {
      if (!(err instanceof PersistentSubscriptionDoesNotExistError || err instanceof NotFoundError)) throw err;
    }
    if (!current) {
      try {
        const regex = `^(?:${spec.eventTypes.map(escapeRegex).join('|')})$`;
        await this.client.createPersistentSubscriptionToAll(spec.group, wanted, { filter: eventTypeFilter({ regex }) });
        return;
      } catch (err) {
        // Another process created it at the same moment: compare with what it created.
        if (!(err instanceof PersistentSubscriptionExistsError)) throw err;
        current = (await this.client.getPersistentSubscriptionToAllInfo(spec.group)).settings;
      }
    }
    if (current.messageTimeout !== wanted.messageTimeout || current.maxRetryCount !== wanted.maxRetryCount || current.consumerStrategyName !== wanted.consumerStrategyName) {
      await this.client.updatePersistentSubscriptionToAll(spec.group, { ...current, messageTimeout: wanted.messageTimeout, maxRetryCount: wanted.maxRetryCount, consumerStrategyName: wanted.consumerStrategyName });
    }
  }

  override consume(group: string, options: ConsumeOptions): GroupConsumer {
    let sub: PersistentSubscriptionToAll | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    const connect = () => {
      retry = undefined;
      if (stopped || this.closed) return;
      const current = this.client.subscribeToPersistentSubscriptionToAll(group, { bufferSize: options.inFlight });
      sub = current;
      const dropped = (err: Error) => {
        if (sub !== current) return;
        sub = undefined;
        void current.unsubscribe().catch(() => undefined);
        if (stopped || this.closed) return;
        options.onDropped(err);
        retry = setTimeout(connect, this.reconnectMs);
        retry.unref();
      };
      current.on('data', (resolved: PersistentSubscriptionToAllResolvedEvent) => {
        if (sub !== current) return;
        if (!resolved.event) {
          void current.ack(resolved).catch(() => undefined); // nothing to work on
          return;
        }
        options.onMessage(this.message(current, () => sub === current, resolved));
      });
      current.on('error', (err: Error) => dropped(err));
      current.on('end', () => dropped(new Error(`the subscription to group ${group} ended`)));
    };
    connect();
    const consumer: GroupConsumer = {
      close: async () => {
        stopped = true;
        this.consumers.delete(consumer);
        clearTimeout(retry);
        const current = sub;
        sub = undefined;
        await current?.unsubscribe().catch(() => undefined);
      },
    };
    this.consumers.add(consumer);
    return consumer;
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.consumers].map((c) => c.close()));
    await this.client.dispose();
  }

  private message(sub: PersistentSubscriptionToAll, live: () => boolean, resolved: PersistentSubscriptionToAllResolvedEvent): GroupMessage {
    const e = resolved.event!;
    const stored = (e.metadata ?? {}) as { eventId?: string; schemaVersion?: number };
    const lifted = this.schemas.lift(e.type, stored.schemaVersion ?? 1, e.data);
    return {
      eventId: stored.eventId ?? e.id,
      type: e.type,
      streamName: e.streamId,
      data: lifted.data,
      retryCount: resolved.retryCount,
      // After a drop the server already handed the message on: an ack or nack would be refused.
      ack: async () => {
        if (live()) await sub.ack(resolved);
      },
      nack: async (action, reason) => {
        if (live()) await sub.nack(action === 'park' ? PARK : RETRY, reason, resolved);
      },
    };
  }
}
