import type { Readable } from 'node:stream';
import { AppError, FixedClock, streamName, type DomainEvent, type NewEvent, type RecordedEvent } from '@gensvc/kernel';
import { loadAggregate, type AppendOptions, type AppendResult } from '@gensvc/event-sourcing';
import { SqliteEventStore } from '@gensvc/storage';
import { DelegatingEventStore } from '@gensvc/event-sourcing/testing/delegating-event-store';
import { Catalogue, CatalogueVersion, type CatalogueFile } from '@gensvc/catalogue/contracts';
import { AssetRegistry, type UsableAsset } from '@gensvc/assets/contracts';
import { VoiceRegistry } from '@gensvc/voices/contracts';
import type { WalletCommands } from '@gensvc/wallet/contracts';
import { createWalletForTests } from '@gensvc/wallet/testing/wallet-test-kit';
import { createQuotingForTests, type QuotingForTests } from '@gensvc/quoting/testing/quoting-test-kit';
import { TASK_CREATION_STREAM, taskCreationDecider } from '../../domain/task-creation';
import { TaskStore } from '../task-store';
import { CreateTaskHandler, creationIdOf } from './create-task.handler';
import { TaskCreation } from './task-creation';
import { TaskCreationReactor } from './task-creation.reactor';

/** Assets of the test: every id is usable. */
class FakeAssetRegistry extends AssetRegistry {
  async requireUsable(_a: string, ids: readonly string[]): Promise<UsableAsset[]> {
    return ids.map((id) => ({ id, name: id, mime: 'image/png', size: 1, checksum: '0'.repeat(64) }));
  }
  async open(): Promise<Readable> {
    throw new Error('not used');
  }
  async registerOutput(): Promise<string> {
    throw new Error('not used');
  }
  link(): string {
    throw new Error('not used');
  }
}

class FakeVoiceRegistry extends VoiceRegistry {
  async requireUsable(_a: string, id: string) {
    return { id, supplierVoiceId: id };
  }
  async register(): Promise<string> {
    throw new Error('not used');
  }
}

/**
 * A real embedded event store that can be told to fail the next append to some stream (a
 * crash). `pipelined` says whether callers may queue appends on appends in flight, as on the
 * embedded store itself (the creation then runs its steps in one group commit).
 */
class CrashingEventStore extends DelegatingEventStore {
  private crashes: { prefix: string; remaining: number }[] = [];
  constructor(
    override readonly inner: SqliteEventStore,
    public pipelined: boolean,
  ) {
    super(inner);
  }
  override get pipelinedAppends(): boolean {
    return this.pipelined;
  }
  crashOnNextAppend(prefix: string, times = 1): void {
    this.crashes.push({ prefix, remaining: times });
  }
  override async appendToStream<E extends DomainEvent>(s: string, events: readonly NewEvent<E>[], o?: AppendOptions): Promise<AppendResult> {
    const crash = this.crashes.find((c) => c.remaining > 0 && s.startsWith(c.prefix));
    if (crash) {
      crash.remaining--;
      throw new Error(`simulated crash before appending to ${s}`);
    }
    return this.inner.appendToStream(s, events, o);
  }
}

describe.each([
  ['step by step', false],
  ['pipelined', true],
])('task creation (application, embedded event store, appends %s)', (_, pipelined) => {
  let events: CrashingEventStore;
  let clock: FixedClock;
  let wallet: WalletCommands;
  let quoting: QuotingForTests;
  let handler: CreateTaskHandler;
  let creation: TaskCreation;
  let reactor: TaskCreationReactor;
  const catalogue = Catalogue.load();
  let n = 0;
  const principal = () => ({ accountId: `acc_${++n}`, connectionId: `key_${n}` });

  beforeEach(() => {
    events = new CrashingEventStore(new SqliteEventStore(':memory:'), pipelined);
    clock = new FixedClock(new Date());
    wallet = createWalletForTests(events, clock);
    quoting = createQuotingForTests({ events, catalogue, assets: new FakeAssetRegistry(), voices: new FakeVoiceRegistry(), clock });
    const tasks = new TaskStore(events, clock);
    creation = new TaskCreation(tasks, quoting.book, wallet, events);
    reactor = new TaskCreationReactor(creation);
    handler = new CreateTaskHandler(tasks, quoting.book, wallet, new FakeAssetRegistry(), new FakeVoiceRegistry(), creation);
  });
  afterEach(() => events.close());

  /** A text quote of 0.02 CNY (or an image quote of `count` × 0.2). */
  const quoteFor = async (p: { accountId: string; connectionId: string }, count?: number) =>
    (
      await quoting.issue(
        count
          ? { principal: p, model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'cat', count } }
          : { principal: p, model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'hi' } },
      )
    ).quote_id;

  const cmd = (p: { accountId: string; connectionId: string }, key: string, quoteId: string, title: string | null) => ({
    type: 'CreateTask' as const,
    data: { account_id: p.accountId, connection_id: p.connectionId, idempotency_key: key, quote_id: quoteId, title },
    metadata: { now: clock.now() },
  });

  const code = async (p: Promise<unknown>): Promise<string> => {
    try {
      await p;
    } catch (err) {
      if (err instanceof AppError) return err.code;
      throw err;
    }
    return 'OK';
  };

  it('locks the quote, reserves max_amount and creates the task', async () => {
    const p = principal();
    await wallet.credit(p.accountId, '1.00');
    const quoteId = await quoteFor(p);
    const { task } = await handler.execute(cmd(p, 'key-00000001', quoteId, 'first'));
    expect(task).toMatchObject({ status: 'queued', quote_id: quoteId, max_amount: '0.020000', settlement_status: 'reserved', title: 'first' });
    expect(await wallet.view(p.accountId)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.020000', available: '0.980000' });
    const quoteEvents = await events.readStream(streamName('quote', quoteId));
    expect(quoteEvents.map((e) => e.type)).toEqual(['QuoteIssued', 'QuoteAccepted']);
    const walletEvents = await events.readStream(streamName('wallet', p.accountId));
    expect(walletEvents.map((e) => e.type)).toEqual(['FundsCredited', 'FundsReserved']);
    expect(walletEvents[1].metadata.schemaVersion).toBe(1);
  });

  it('answers a repeat with the same key and body with the same task and no second reservation', async () => {
    const p = principal();
    await wallet.credit(p.accountId, '1.00');
    const quoteId = await quoteFor(p);
    const a = await handler.execute(cmd(p, 'key-00000001', quoteId, null));
    const b = await handler.execute(cmd(p, 'key-00000001', quoteId, null));
    expect(b.task.task_id).toBe(a.task.task_id);
    expect((await wallet.view(p.accountId)).reserved).toBe('0.020000');
  });

  it('creates one task for 20 concurrent identical requests', async () => {
    const p = principal();
    await wallet.credit(p.accountId, '1.00');
    const quoteId = await quoteFor(p);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => handler.execute(cmd(p, 'same-key-123', quoteId, 'x'))),
    );
    expect(new Set(results.map((r) => r.task.task_id)).size).toBe(1);
    const walletEvents = await events.readStream(streamName('wallet', p.accountId));
    expect(walletEvents.filter((e) => e.type === 'FundsReserved')).toHaveLength(1);
    expect((await wallet.view(p.accountId)).reserved).toBe('0.020000');
  });

  it('refuses another body under a used key, another key for a used quote, and an expired quote', async () => {
    const p = principal();
    await wallet.credit(p.accountId, '1.00');
    const q1 = await quoteFor(p);
    const q2 = await quoteFor(p);
    await handler.execute(cmd(p, 'key-00000001', q1, null));
    expect(await code(handler.execute(cmd(p, 'key-00000001', q2, null)))).toBe('IDEMPOTENCY_CONFLICT');
    expect(await code(handler.execute(cmd(p, 'key-00000001', q1, 'other')))).toBe('IDEMPOTENCY_CONFLICT');
    expect(await code(handler.execute(cmd(p, 'key-00000002', q1, null)))).toBe('QUOTE_ALREADY_USED');
    clock.advance(15 * 60_000);
    expect(await code(handler.execute(cmd(p, 'key-00000003', q2, null)))).toBe('QUOTE_EXPIRED');
  });

  it("answers another account's quote as not found", async () => {
    const owner = principal();
    const other = principal();
    await wallet.credit(other.accountId, '1.00');
    const quoteId = await quoteFor(owner);
    expect(await code(handler.execute(cmd(other, 'key-00000001', quoteId, null)))).toBe('NOT_FOUND');
    expect(await code(handler.execute(cmd(other, 'key-00000002', 'qt_nope', null)))).toBe('NOT_FOUND');
  });

  it('refuses short funds with INSUFFICIENT_FUNDS, reserves nothing, and the same key works after a credit', async () => {
    const p = principal();
    await wallet.credit(p.accountId, '0.10');
    const quoteId = await quoteFor(p, 1); // 0.20
    expect(await code(handler.execute(cmd(p, 'key-00000001', quoteId, null)))).toBe('INSUFFICIENT_FUNDS');
    expect(await wallet.view(p.accountId)).toEqual({ currency: 'CNY', balance: '0.100000', reserved: '0.000000', available: '0.100000' });
    expect((await events.readStream(streamName('quote', quoteId))).map((e) => e.type)).toEqual(['QuoteIssued']);
    await wallet.credit(p.accountId, '0.10');
    const { task } = await handler.execute(cmd(p, 'key-00000001', quoteId, null));
    expect(task.max_amount).toBe('0.200000');
    expect((await wallet.view(p.accountId)).available).toBe('0.000000');
  });

  it('never reserves more than is available under concurrent creations on one wallet', async () => {
    const p = principal();
    await wallet.credit(p.accountId, '1.00');
    const quoteIds = await Promise.all(Array.from({ length: 12 }, () => quoteFor(p, 1))); // 12 × 0.20 against 1.00
    const outcomes = await Promise.all(quoteIds.map((quoteId, i) => code(handler.execute(cmd(p, `key-conc-${i}`, quoteId, null)))));
    expect(outcomes.filter((o) => o === 'OK')).toHaveLength(5);
    expect(outcomes.filter((o) => o !== 'OK').every((o) => o === 'INSUFFICIENT_FUNDS')).toBe(true);
    expect(await wallet.view(p.accountId)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '1.000000', available: '0.000000' });
  });

  it('two keys racing for one quote: one task, one QUOTE_ALREADY_USED, one reservation', async () => {
    const p = principal();
    await wallet.credit(p.accountId, '1.00');
    const quoteId = await quoteFor(p);
    const outcomes = await Promise.all([code(handler.execute(cmd(p, 'key-race-1', quoteId, null))), code(handler.execute(cmd(p, 'key-race-2', quoteId, null)))]);
    expect(outcomes.sort()).toEqual(['OK', 'QUOTE_ALREADY_USED']);
    expect(await wallet.view(p.accountId)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.020000', available: '0.980000' });
  });

  it('stores a fresh creation in as many commits as it has steps, or (pipelined) in one', async () => {
    const p = principal();
    await wallet.credit(p.accountId, '1.00');
    const quoteId = await quoteFor(p);
    let commits = 0;
    const stop = events.onAppended(() => commits++);
    await handler.execute(cmd(p, 'key-commits', quoteId, null));
    stop();
    expect(commits).toBe(pipelined ? 1 : 4);
  });

  describe('a catalogue published after the quote', () => {
    const original = catalogue.current();
    afterEach(() => catalogue.replace(original));
    /** The catalogue in service, changed by `edit` and published as the next version. */
    const publish = (edit: (file: { models: { id: string; pricing: { prices: { unit_price: string }[] }[] }[] }) => void) => {
      const file = structuredClone(original.file) as unknown as Parameters<typeof edit>[0];
      edit(file);
      catalogue.replace(new CatalogueVersion(file as unknown as CatalogueFile, { version: original.version + 1, publishedAt: clock.now().toISOString() }));
    };

    it('charges the quote its own price and price version, not the new ones', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '1.00');
      const quoteId = await quoteFor(p);
      const issuedVersion = original.priceVersionOf('text-writer-lite');
      publish((f) => (f.models.find((m) => m.id === 'text-writer-lite')!.pricing[0]!.prices[0]!.unit_price = '0.500000'));
      expect(catalogue.priceVersionOf('text-writer-lite')).not.toBe(issuedVersion);
      const { task } = await handler.execute(cmd(p, 'key-after-publish', quoteId, null));
      expect(task).toMatchObject({ max_amount: '0.020000', estimated_amount: '0.020000', price_version: issuedVersion, quantity: 1, unit: 'request' });
      expect((await wallet.view(p.accountId)).reserved).toBe('0.020000');
    });

    it('refuses a quote of a model the catalogue no longer sells with MODEL_UNAVAILABLE, reserving nothing', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '1.00');
      const quoteId = await quoteFor(p);
      publish((f) => (f.models = f.models.filter((m) => m.id !== 'text-writer-lite')));
      expect(await code(handler.execute(cmd(p, 'key-removed', quoteId, null)))).toBe('MODEL_UNAVAILABLE');
      expect(await wallet.view(p.accountId)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.000000', available: '1.000000' });
      expect((await events.readStream(streamName('quote', quoteId))).map((e) => e.type)).toEqual(['QuoteIssued']);
    });

    it('refuses it too when the publish lands between the checks and the lock, and gives everything back', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '1.00');
      const quoteId = await quoteFor(p);
      // The model leaves the catalogue (available: false) right after the quote was checked.
      const racing = Object.create(quoting.book) as typeof quoting.book;
      racing.usable = async (...args) => {
        const terms = await quoting.book.usable(...args);
        publish((f) => ((f.models.find((m) => m.id === 'text-writer-lite') as unknown as { available: boolean }).available = false));
        return terms;
      };
      const tasks = new TaskStore(events, clock);
      const racingHandler = new CreateTaskHandler(tasks, racing, wallet, new FakeAssetRegistry(), new FakeVoiceRegistry(), creation);
      expect(await code(racingHandler.execute(cmd(p, 'key-race-publish', quoteId, null)))).toBe('MODEL_UNAVAILABLE');
      expect(await wallet.view(p.accountId)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.000000', available: '1.000000' });
      expect((await events.readStream(streamName('quote', quoteId))).map((e) => e.type)).not.toContain('QuoteAccepted');
    });
  });

  describe('a crash between the appends', () => {
    // The crashes below interrupt a creation between two of its steps, which it takes one
    // after the other when appends are not pipelined.
    beforeEach(() => (events.pipelined = false));
    const intentOf = async (accountId: string, key: string) =>
      (await loadAggregate(events, streamName(TASK_CREATION_STREAM, creationIdOf(accountId, key)), taskCreationDecider)).state.intent!;

    const intentEvent = (intent: unknown) => ({ type: 'TaskCreationRequested', data: intent }) as unknown as RecordedEvent;

    it('the reactor, hearing a stored intent whose request failed, finishes the creation without a retry', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '1.00');
      const quoteId = await quoteFor(p);
      events.crashOnNextAppend('task-');
      await expect(handler.execute(cmd(p, 'key-crash-00', quoteId, null))).rejects.toThrow(/simulated crash/);
      const intent = await intentOf(p.accountId, 'key-crash-00');
      expect(await events.readStream(streamName('task', intent.task_id))).toHaveLength(0);
      await reactor.handle(intentEvent(intent));
      expect((await events.readStream(streamName('task', intent.task_id))).map((e) => e.type)).toEqual(['TaskCreated']);
      expect((await wallet.view(p.accountId)).reserved).toBe('0.020000');
    });

    it('the reactor leaves a creation its request finished alone (no read, no append)', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '1.00');
      const quoteId = await quoteFor(p);
      const { task } = await handler.execute(cmd(p, 'key-inline-01', quoteId, null));
      const intent = await intentOf(p.accountId, 'key-inline-01');
      expect(intent.task_id).toBe(task.task_id);
      const reads = jest.spyOn(events, 'readStream');
      const appends = jest.spyOn(events, 'appendToStream');
      await reactor.handle(intentEvent(intent));
      expect(reads).not.toHaveBeenCalled();
      expect(appends).not.toHaveBeenCalled();
    });

    it('after a restart (nothing in memory), the reactor resumes a stored intent from the task stream', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '1.00');
      const quoteId = await quoteFor(p);
      events.crashOnNextAppend('wallet-');
      await expect(handler.execute(cmd(p, 'key-crash-06', quoteId, null))).rejects.toThrow(/simulated crash/);
      const intent = await intentOf(p.accountId, 'key-crash-06');
      // a new process: a new runner and reactor over the same stores
      const fresh = new TaskCreationReactor(new TaskCreation(new TaskStore(events, clock), quoting.book, wallet, events));
      await fresh.handle(intentEvent(intent));
      await fresh.handle(intentEvent(intent)); // a redelivery changes nothing
      expect((await events.readStream(streamName('task', intent.task_id))).map((e) => e.type)).toEqual(['TaskCreated']);
      expect((await events.readStream(streamName('wallet', p.accountId))).map((e) => e.type)).toEqual(['FundsCredited', 'FundsReserved']);
    });

    it('after the reservation, before the task: a retry (or the reactor) creates the task once', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '1.00');
      const quoteId = await quoteFor(p);
      events.crashOnNextAppend('task-');
      await expect(handler.execute(cmd(p, 'key-crash-01', quoteId, null))).rejects.toThrow(/simulated crash/);
      expect((await wallet.view(p.accountId)).reserved).toBe('0.020000');
      const intent = await intentOf(p.accountId, 'key-crash-01');
      expect(await events.readStream(streamName('task', intent.task_id))).toHaveLength(0);

      clock.advance(20 * 60_000); // the quote expires meanwhile: the lock it holds still counts
      const recovered = await creation.processor.run(intent);
      expect(recovered.state.status).toBe('created');
      expect(await new TaskStore(events, clock).load(intent.task_id)).toMatchObject({ kind: 'task', task: { task_id: intent.task_id, status: 'queued' } });
      const retry = await handler.execute(cmd(p, 'key-crash-01', quoteId, null));
      expect(retry.task.task_id).toBe(intent.task_id);
      expect(await wallet.view(p.accountId)).toEqual({ currency: 'CNY', balance: '1.000000', reserved: '0.020000', available: '0.980000' });
    });

    it('after the quote lock, before the reservation, funds gone meanwhile: rolled back, quote free again', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '0.20');
      const quoteId = await quoteFor(p, 1); // 0.20
      events.crashOnNextAppend('wallet-');
      await expect(handler.execute(cmd(p, 'key-crash-02', quoteId, null))).rejects.toThrow(/simulated crash/);
      const intent = await intentOf(p.accountId, 'key-crash-02');
      expect((await events.readStream(streamName('quote', quoteId))).map((e) => e.type)).toEqual(['QuoteIssued', 'QuoteAccepted']);

      // another task takes the money before the recovery runs
      const other = await quoteFor(p, 1);
      await handler.execute(cmd(p, 'key-other-01', other, null)).catch(() => undefined);
      expect((await wallet.view(p.accountId)).available).toBe('0.000000');

      expect((await creation.processor.run(intent)).state).toMatchObject({ status: 'rolled_back', refusal: { code: 'INSUFFICIENT_FUNDS' } });
      const taskEvents = await events.readStream(streamName('task', intent.task_id));
      expect(taskEvents.map((e) => e.type)).toEqual(['TaskCreationRejected', 'TaskCreationRolledBack']);
      expect((await events.readStream(streamName('quote', quoteId))).map((e) => e.type)).toEqual(['QuoteIssued', 'QuoteAccepted', 'QuoteReleased']);
      // the same key answers the same refusal; the quote can be used again with a new key once funds exist
      expect(await code(handler.execute(cmd(p, 'key-crash-02', quoteId, null)))).toBe('INSUFFICIENT_FUNDS');
      await wallet.credit(p.accountId, '0.20');
      const { task } = await handler.execute(cmd(p, 'key-crash-03', quoteId, null));
      expect(task.quote_id).toBe(quoteId);
      // the rolled-back task id can never reserve
      expect(await wallet.reserve({ accountId: p.accountId, reservationId: intent.task_id, taskId: intent.task_id, amount: 1n })).toMatchObject({
        reserved: false,
        refusal: { code: 'CONFLICT' },
      });
    });

    it('after the rejection, before the rollback: the next run finishes the rollback', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '0.20');
      const quoteId = await quoteFor(p, 1);
      const spender = await quoteFor(p, 1);
      events.crashOnNextAppend('wallet-');
      await expect(handler.execute(cmd(p, 'key-crash-04', quoteId, null))).rejects.toThrow();
      await handler.execute(cmd(p, 'key-spend-01', spender, null));
      const intent = await intentOf(p.accountId, 'key-crash-04');
      events.crashOnNextAppend('quote-'); // the release of the quote lock fails once
      await expect(creation.processor.run(intent)).rejects.toThrow(/simulated crash/);
      expect((await events.readStream(streamName('task', intent.task_id))).map((e) => e.type)).toEqual(['TaskCreationRejected']);
      expect((await creation.processor.run(intent)).state).toMatchObject({ status: 'rolled_back', refusal: { code: 'INSUFFICIENT_FUNDS' } });
      expect((await events.readStream(streamName('task', intent.task_id))).map((e) => e.type)).toEqual(['TaskCreationRejected', 'TaskCreationRolledBack']);
      expect((await events.readStream(streamName('quote', quoteId))).at(-1)?.type).toBe('QuoteReleased');
    });

    it('executors racing on one intent converge on one outcome', async () => {
      const p = principal();
      await wallet.credit(p.accountId, '1.00');
      const quoteId = await quoteFor(p);
      events.crashOnNextAppend('task-');
      await expect(handler.execute(cmd(p, 'key-crash-05', quoteId, null))).rejects.toThrow();
      const intent = await intentOf(p.accountId, 'key-crash-05');
      const results = await Promise.all(Array.from({ length: 8 }, () => creation.processor.run(intent)));
      expect(new Set(results.map((r) => (r.state.status === 'created' ? r.state.task.task_id : r.state.status)))).toEqual(new Set([intent.task_id]));
      expect((await events.readStream(streamName('task', intent.task_id))).map((e) => e.type)).toEqual(['TaskCreated']);
      expect((await wallet.view(p.accountId)).reserved).toBe('0.020000');
    });
  });
});
