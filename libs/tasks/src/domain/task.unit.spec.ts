import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { fold } from '@gensvc/kernel';
import { taskDecider, type TaskCreatedEventData, type TaskEvent, type TaskState } from './task';
import { taskCreationDecider, type CreationIntent } from './task-creation';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const now = new Date('2026-01-01T00:00:05.000Z');
const at = now.toISOString();
const ref = { task_id: 'task_1', account_id: 'acc_1', at };

const created: TaskCreatedEventData = {
  task_id: 'task_1',
  bill_id: 'bill_1',
  account_id: 'acc_1',
  connection_id: 'key_1',
  quote_id: 'qt_1',
  model: 'text-writer-lite',
  resolved_model: 'text-writer-lite-2026-11-01',
  capability: 'text.generate',
  modality: 'text',
  title: 'hello',
  price_version: 'v1',
  currency: 'CNY',
  estimated_amount: '0.020000',
  max_amount: '0.020000',
  params: { prompt: 'hi' },
  asset_ids: [],
  voice_id: null,
  created_at: t0.toISOString(),
};
const C: TaskEvent = { type: 'TaskCreated', data: created };
const started: TaskEvent = { type: 'TaskStarted', data: ref };
const succeeded: TaskEvent = { type: 'TaskSucceeded', data: { ...ref, output: { asset_ids: ['ast_1'] } } };
const failed: TaskEvent = { type: 'TaskFailed', data: { ...ref, error: { code: 'SUPPLIER_ERROR', message: 'x' } } };
const canceled: TaskEvent[] = [
  { type: 'CancellationConfirmed', data: ref },
  { type: 'TaskCanceled', data: ref },
];
const requested: TaskEvent = { type: 'CancellationRequested', data: ref };
const spec = DeciderSpecification.for(taskDecider);
const task = (events: TaskEvent[]) => {
  const s = fold(taskDecider, events) as Extract<TaskState, { kind: 'task' }>;
  expect(s.kind).toBe('task');
  return s.task;
};

describe('task decider: creation', () => {
  it('creates once; a repeat is a no-op', () => {
    spec.given([]).when({ type: 'CreateTask', data: created, metadata: { now } }).then([C]);
    spec.given([C]).when({ type: 'CreateTask', data: created, metadata: { now } }).then([]);
  });

  it('a rejected creation can never be created, and a created task never rejected (the command changes nothing)', () => {
    const rejected: TaskEvent = { type: 'TaskCreationRejected', data: { ...ref, code: 'INSUFFICIENT_FUNDS', message: 'short' } };
    spec.given([]).when({ type: 'RejectCreation', data: { task_id: 'task_1', account_id: 'acc_1', code: 'INSUFFICIENT_FUNDS', message: 'short' }, metadata: { now } }).then([rejected]);
    spec.given([rejected]).when({ type: 'CreateTask', data: created, metadata: { now } }).then([]);
    spec.given([C]).when({ type: 'RejectCreation', data: { task_id: 'task_1', account_id: 'acc_1', code: 'X', message: 'y' }, metadata: { now } }).then([]);
    spec.given([rejected]).when({ type: 'RollBackCreation', data: { task_id: 'task_1', account_id: 'acc_1' }, metadata: { now } }).then([{ type: 'TaskCreationRolledBack', data: ref }]);
    spec.given([rejected, { type: 'TaskCreationRolledBack', data: ref }]).when({ type: 'RollBackCreation', data: { task_id: 'task_1', account_id: 'acc_1' }, metadata: { now } }).then([]);
  });

  it('starts queued with a reservation and no cancellation', () => {
    const t = task([C]);
    expect(t.status).toBe('queued');
    expect(t.settlement_status).toBe('reserved');
    expect(t.cancellation).toEqual({ status: 'none', requested_at: null, error_code: null });
  });
});

describe('task decider: execution', () => {
  it('queued → running → succeeded', () => {
    spec.given([C]).when({ type: 'StartTask', data: { task_id: 'task_1' }, metadata: { now } }).then([started]);
    spec.given([C, started]).when({ type: 'StartTask', data: { task_id: 'task_1' }, metadata: { now } }).then([]);
    spec.given([C, started]).when({ type: 'SucceedTask', data: { task_id: 'task_1', output: { asset_ids: ['ast_1'] } }, metadata: { now } }).then([succeeded]);
    expect(task([C, started, succeeded])).toMatchObject({ status: 'succeeded', output: { asset_ids: ['ast_1'] }, completed_at: at });
  });

  it('nothing leaves a terminal status', () => {
    for (const end of [[succeeded], [failed], canceled]) {
      const given = [C, started, ...end];
      spec.given(given).when({ type: 'StartTask', data: { task_id: 'task_1' }, metadata: { now } }).then([]);
      spec.given(given).when({ type: 'SucceedTask', data: { task_id: 'task_1', output: { asset_ids: [] } }, metadata: { now } }).then([]);
      spec.given(given).when({ type: 'FailTask', data: { task_id: 'task_1', error: { code: 'E', message: 'm' } }, metadata: { now } }).then([]);
      spec.given(given).when({ type: 'ConfirmCancellation', data: { task_id: 'task_1' }, metadata: { now } }).then([]);
      spec.given(given).when({ type: 'RequestCancellation', data: { task_id: 'task_1' }, metadata: { now } }).then([]);
    }
  });

  it('changes nothing for a task that does not exist', () => {
    spec.given([]).when({ type: 'StartTask', data: { task_id: 'task_1' }, metadata: { now } }).then([]);
  });
});

describe('task decider: cancellation', () => {
  it('requested → checking → confirmed cancels the task', () => {
    spec.given([C, started]).when({ type: 'RequestCancellation', data: { task_id: 'task_1' }, metadata: { now } }).then([requested]);
    spec.given([C, started, requested]).when({ type: 'RequestCancellation', data: { task_id: 'task_1' }, metadata: { now } }).then([]);
    spec.given([C, started, requested]).when({ type: 'MarkCancellationChecking', data: { task_id: 'task_1' }, metadata: { now } }).then([{ type: 'CancellationChecking', data: ref }]);
    spec.given([C, started, requested, { type: 'CancellationChecking', data: ref }]).when({ type: 'ConfirmCancellation', data: { task_id: 'task_1' }, metadata: { now } }).then(canceled);
    const t = task([C, started, requested, { type: 'CancellationChecking', data: ref }, ...canceled]);
    expect(t.status).toBe('canceled');
    expect(t.cancellation).toEqual({ status: 'confirmed', requested_at: at, error_code: null });
  });

  it('refused or unconfirmed leaves the task running', () => {
    spec
      .given([C, started, requested])
      .when({ type: 'MarkCancellationRefused', data: { task_id: 'task_1' }, metadata: { now } })
      .then([{ type: 'CancellationRefused', data: { ...ref, error_code: 'CANCEL_REFUSED' } }]);
    const t = task([C, started, requested, { type: 'CancellationUnconfirmed', data: { ...ref, error_code: 'CANCEL_UNCONFIRMED' } }]);
    expect(t.status).toBe('running');
    expect(t.cancellation).toEqual({ status: 'unconfirmed', requested_at: at, error_code: 'CANCEL_UNCONFIRMED' });
  });

  it('completion overtaking a pending request makes the cancellation not_needed; a late confirmation changes nothing', () => {
    const t = task([C, started, requested, succeeded]);
    expect(t.status).toBe('succeeded');
    expect(t.cancellation.status).toBe('not_needed');
    spec.given([C, started, requested, succeeded]).when({ type: 'ConfirmCancellation', data: { task_id: 'task_1' }, metadata: { now } }).then([]);
  });

  it('a confirmed cancellation wins over a late success', () => {
    spec.given([C, started, requested, ...canceled]).when({ type: 'SucceedTask', data: { task_id: 'task_1', output: { asset_ids: [] } }, metadata: { now } }).then([]);
  });
});

describe('task decider: settlement', () => {
  const settled: TaskEvent = {
    type: 'TaskSettled',
    data: { ...ref, settlement_status: 'settled', charged_amount: '0.020000', released_amount: '0.000000' },
  };
  it('settles a finished task once', () => {
    spec
      .given([C, started, succeeded])
      .when({ type: 'SettleTask', data: { task_id: 'task_1', settlement_status: 'settled', charged_amount: '0.020000', released_amount: '0.000000' }, metadata: { now } })
      .then([settled]);
    spec
      .given([C, started, succeeded, settled])
      .when({ type: 'SettleTask', data: { task_id: 'task_1', settlement_status: 'settled', charged_amount: '0.020000', released_amount: '0.000000' }, metadata: { now } })
      .then([]);
    expect(task([C, started, succeeded, settled])).toMatchObject({ settlement_status: 'settled', charged_amount: '0.020000', settled_at: at });
  });

  it('does not settle a running task, nor a failed task as charged', () => {
    spec
      .given([C, started])
      .when({ type: 'SettleTask', data: { task_id: 'task_1', settlement_status: 'released', charged_amount: '0.000000', released_amount: '0.020000' }, metadata: { now } })
      .then([]);
    spec
      .given([C, started, failed])
      .when({ type: 'SettleTask', data: { task_id: 'task_1', settlement_status: 'settled', charged_amount: '0.020000', released_amount: '0.000000' }, metadata: { now } })
      .thenThrows('CONFLICT');
  });
});

describe('task creation intent', () => {
  const intent: CreationIntent = {
    creation_id: 'c1',
    task_id: 'task_1',
    account_id: 'acc_1',
    connection_id: 'key_1',
    idempotency_key: 'key-123456',
    body_hash: 'h1',
    quote_id: 'qt_1',
    title: null,
    requested_at: at,
  };
  const spec2 = DeciderSpecification.for(taskCreationDecider);
  it('binds the key to the first body', () => {
    spec2.given([]).when({ type: 'RequestCreation', data: intent, metadata: { now } }).then([{ type: 'TaskCreationRequested', data: intent }]);
    spec2.given([{ type: 'TaskCreationRequested', data: intent }]).when({ type: 'RequestCreation', data: { ...intent, task_id: 'task_2' }, metadata: { now } }).then([]);
    spec2
      .given([{ type: 'TaskCreationRequested', data: intent }])
      .when({ type: 'RequestCreation', data: { ...intent, body_hash: 'h2' }, metadata: { now } })
      .thenThrows('IDEMPOTENCY_CONFLICT');
  });
});
