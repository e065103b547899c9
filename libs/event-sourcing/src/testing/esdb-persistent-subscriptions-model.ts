import {
  END,
  PersistentSubscriptionDoesNotExistError,
  PersistentSubscriptionDroppedError,
  PersistentSubscriptionExistsError,
  START,
  type EventStoreDBClient,
  type Filter,
  type PersistentSubscriptionToAllSettings,
} from '@eventstore/db-client';
import { EventEmitter } from 'node:events';
import { EsdbLogModel, type LogEvent } from './esdb-log-model';

interface Message {
  readonly event: LogEvent;
  readonly retryCount: number;
}

interface Connection {
  readonly client: object;
  readonly sub: EventEmitter;
  readonly bufferSize: number;
  /** Messages delivered and not acknowledged, by event id, with their timeout. */
  readonly inFlight: Map<string, { message: Message; deadline: number }>;
}

interface Group {
  readonly name: string;
  settings: PersistentSubscriptionToAllSettings;
  readonly matches: (e: LogEvent) => boolean;
  /** Next index of the log the group has not read yet. */
  cursor: number;
  readonly retries: Message[];
  readonly parked: Message[];
  readonly connections: Connection[];
  next: number;
}

type ServiceError = ConstructorParameters<typeof PersistentSubscriptionExistsError>[0];

/** The error a real client raises for a server answer carrying EventStoreDB's metadata. */
function serverError(message: string, group: string): ServiceError {
  const meta = { 'stream-name': '$all', 'group-name': group };
  return { message, details: message, code: 0, metadata: { getMap: () => meta } } as unknown as ServiceError;
}

/**
 * An in-process model of EventStoreDB's persistent subscriptions to `$all` (competing
 * consumers), on top of the transaction-log model: groups created and updated by name, an
 * event-type filter, round-robin dispatch to connected consumers within each one's buffer
 * size, ack and nack (retry, park, skip), redelivery with an increasing retry count when a
 * message is refused, times out, or its consumer's connection ends, and parking after
 * `maxRetryCount` retries. An update drops the group's consumers as the server does.
 * It is a stand-in for tests of the adapter and of the code that consumes through it, not
 * EventStoreDB: the contract suite runs against a real server when EVENTSTORE_URL is set.
 */
export class EsdbPersistentSubscriptionsModel extends EsdbLogModel {
  private readonly groups = new Map<string, Group>();
  private readonly timer: NodeJS.Timeout;

  constructor(options: { systemEventsEvery?: number } = {}) {
    super(options);
    this.timer = setInterval(() => this.expire(), 25);
    this.timer.unref();
  }

  override client(): EventStoreDBClient {
    const base = super.client() as unknown as Record<string, unknown>;
    const client: Record<string, unknown> = {
      ...base,
      createPersistentSubscriptionToAll: async (name: string, settings: PersistentSubscriptionToAllSettings, options: { filter?: Filter } = {}) => {
        await Promise.resolve();
        if (this.groups.has(name)) throw new PersistentSubscriptionExistsError(serverError(`group ${name} exists`, name));
        const filter = options.filter;
        const regex = filter && 'regex' in filter ? new RegExp(filter.regex) : undefined;
        const prefixes = filter && 'prefixes' in filter ? filter.prefixes : undefined;
        const key = (e: LogEvent) => (filter?.filterOn === 'streamName' ? e.streamId : e.type);
        const matches = (e: LogEvent) =>
          !e.streamId.startsWith('$') && (regex ? regex.test(key(e)) : prefixes ? prefixes.some((p) => key(e).startsWith(p)) : true);
        const cursor = settings.startFrom === START ? 0 : settings.startFrom === END ? this.log.length : this.log.findIndex((e) => e.position.commit >= (settings.startFrom as { commit: bigint }).commit);
        this.groups.set(name, { name, settings: { ...settings }, matches, cursor: cursor < 0 ? this.log.length : cursor, retries: [], parked: [], connections: [], next: 0 });
      },
      updatePersistentSubscriptionToAll: async (name: string, settings: PersistentSubscriptionToAllSettings) => {
        await Promise.resolve();
        const group = this.group(name);
        group.settings = { ...settings };
        // The server restarts the group: every consumer is dropped, its messages retried.
        for (const c of [...group.connections]) {
          this.disconnect(group, c);
          setImmediate(() => c.sub.emit('error', new PersistentSubscriptionDroppedError(serverError(`group ${name} was updated`, name))));
        }
      },
      getPersistentSubscriptionToAllInfo: async (name: string) => {
        await Promise.resolve();
        const group = this.group(name);
        return {
          eventSource: '$all',
          groupName: name,
          status: 'Live',
          settings: { ...group.settings },
          stats: {
            parkedMessageCount: BigInt(group.parked.length),
            totalInFlightMessages: group.connections.reduce((n, c) => n + c.inFlight.size, 0),
            retryBufferCount: group.retries.length,
          },
          connections: group.connections.map((c) => ({ inFlightMessages: c.inFlight.size, availableSlots: c.bufferSize - c.inFlight.size })),
        };
      },
      subscribeToPersistentSubscriptionToAll: (name: string, options: { bufferSize?: number } = {}) => {
        const sub = new EventEmitter();
        const group = this.groups.get(name);
        if (!group) {
          setImmediate(() => sub.emit('error', new PersistentSubscriptionDoesNotExistError(undefined, { streamName: '$all', groupName: name })));
          return Object.assign(sub, { ack: async () => undefined, nack: async () => undefined, unsubscribe: async () => undefined });
        }
        const connection: Connection = { client, sub, bufferSize: options.bufferSize ?? 10, inFlight: new Map() };
        const settle = (events: { event?: { id: string } }[], outcome: (m: Message) => void) => {
          for (const r of events) {
            const held = r.event && connection.inFlight.get(r.event.id);
            if (!held) continue;
            connection.inFlight.delete(r.event!.id);
            outcome(held.message);
          }
          this.pump(group);
        };
        Object.assign(sub, {
          ack: async (...events: { event?: { id: string } }[]) => settle(events, () => undefined),
          nack: async (action: string, _reason: string, ...events: { event?: { id: string } }[]) =>
            settle(events, (m) => {
              if (action === 'park') group.parked.push(m);
              else if (action === 'retry') this.retry(group, m);
              // 'skip' drops the message; 'stop' is not modelled
            }),
          unsubscribe: async () => this.disconnect(group, connection),
        });
        group.connections.push(connection);
        setImmediate(() => this.pump(group));
        return sub;
      },
      dispose: async () => this.crash(client as unknown as EventStoreDBClient),
    };
    return client as unknown as EventStoreDBClient;
  }

  /**
   * The process behind `client` dies: its connections end without a word to it, and the
   * server hands their unacknowledged messages to the other consumers.
   */
  crash(client: EventStoreDBClient): void {
    for (const group of this.groups.values()) for (const c of [...group.connections]) if (c.client === client) this.disconnect(group, c);
  }

  /** Messages the server parked or was told to park in `name`. */
  parked(name: string): { type: string; data: unknown; retryCount: number }[] {
    return this.group(name).parked.map((m) => ({ type: m.event.type, data: m.event.data, retryCount: m.retryCount }));
  }

  stop(): void {
    clearInterval(this.timer);
  }

  protected override appended(): void {
    for (const group of this.groups.values()) setImmediate(() => this.pump(group));
  }

  private group(name: string): Group {
    const group = this.groups.get(name);
    if (!group) throw new PersistentSubscriptionDoesNotExistError(undefined, { streamName: '$all', groupName: name });
    return group;
  }

  private disconnect(group: Group, c: Connection): void {
    const i = group.connections.indexOf(c);
    if (i < 0) return;
    group.connections.splice(i, 1);
    const held = [...c.inFlight.values()];
    c.inFlight.clear();
    for (const { message } of held) this.retry(group, message);
    this.pump(group);
  }

  /** A message to deliver again, or parked once it was retried `maxRetryCount` times. */
  private retry(group: Group, m: Message): void {
    if (m.retryCount >= group.settings.maxRetryCount) group.parked.push(m);
    else group.retries.push({ event: m.event, retryCount: m.retryCount + 1 });
  }

  private expire(): void {
    const now = Date.now();
    for (const group of this.groups.values()) {
      let changed = false;
      for (const c of group.connections) {
        for (const [id, held] of c.inFlight) {
          if (held.deadline > now) continue;
          c.inFlight.delete(id);
          this.retry(group, held.message);
          changed = true;
        }
      }
      if (changed) this.pump(group);
    }
  }

  /** Hands out messages, retries first, round robin over consumers with free slots. */
  private pump(group: Group): void {
    for (;;) {
      const free = group.connections.filter((c) => c.inFlight.size < c.bufferSize);
      if (!free.length) return;
      let message = group.retries.shift();
      if (!message) {
        while (group.cursor < this.log.length && !group.matches(this.log[group.cursor])) group.cursor++;
        if (group.cursor >= this.log.length) return;
        message = { event: this.log[group.cursor++], retryCount: 0 };
      }
      const c = free[group.next++ % free.length];
      c.inFlight.set(message.event.id, { message, deadline: Date.now() + group.settings.messageTimeout });
      const delivered = { event: { ...message.event }, commitPosition: message.event.position.commit, retryCount: message.retryCount };
      setImmediate(() => {
        if (group.connections.includes(c) && c.inFlight.has(message.event.id)) c.sub.emit('data', delivered);
      });
    }
  }
}
