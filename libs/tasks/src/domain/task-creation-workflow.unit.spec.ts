import { WorkflowSpecification } from '@gensvc/kernel/testing/workflow-specification';
import type { LockedQuote } from '@gensvc/quoting/contracts';
import { taskCreatedData, taskCreationWorkflow, type CreationCommand, type CreationInput } from './task-creation-workflow';
import type { CreationIntent } from './task-creation';

const spec = WorkflowSpecification.for(taskCreationWorkflow);

const intent: CreationIntent = {
  creation_id: 'c1',
  task_id: 'task_01',
  account_id: 'acc_1',
  connection_id: 'key_1',
  idempotency_key: 'k1',
  body_hash: 'h',
  quote_id: 'qt_1',
  title: 'a title',
  requested_at: '2026-01-01T00:00:00.000Z',
};
const quote: LockedQuote = {
  quoteId: 'qt_1',
  accountId: 'acc_1',
  model: 'img-1',
  resolvedModel: 'img-1@2026',
  capability: 'image.generate',
  modality: 'image',
  params: { prompt: 'x' },
  assetIds: ['ast_1'],
  voiceId: null,
  supplier: 'local',
  currency: 'CNY',
  priceVersion: 'v1',
  quantity: 2,
  unit: 'image',
  estimatedAmount: 20_000n,
  maxAmount: 30_000n,
  expiresAt: '2026-01-01T00:15:00.000Z',
};
const AT = '2026-01-01T00:00:01.000Z';
const created = taskCreatedData(intent, quote, AT);

const requested: CreationInput = { type: 'TaskCreationRequested', data: intent };
const locked: CreationInput = { type: 'QuoteLocked', data: { task_id: intent.task_id, quote } };
const reserved: CreationInput = { type: 'FundsReserved', data: { task_id: intent.task_id, at: AT } };
const taskCreated: CreationInput = { type: 'TaskCreated', data: created };
const rejected = (code: string, message = 'refused'): CreationInput => ({ type: 'TaskCreationRejected', data: { task_id: intent.task_id, code, message } });
const rolledBack: CreationInput = { type: 'TaskCreationRolledBack', data: { task_id: intent.task_id } };

const acceptQuote: CreationCommand = { type: 'AcceptQuote', data: { quote_id: 'qt_1', account_id: 'acc_1', task_id: 'task_01' } };
const reserveFunds: CreationCommand = { type: 'ReserveFunds', data: { account_id: 'acc_1', reservation_id: 'task_01', task_id: 'task_01', amount: 30_000n } };
const giveBack: CreationCommand[] = [
  { type: 'ReleaseQuote', data: { quote_id: 'qt_1', task_id: 'task_01' } },
  { type: 'ReleaseFunds', data: { account_id: 'acc_1', reservation_id: 'task_01' } },
  { type: 'RollBackCreation', data: { task_id: 'task_01', account_id: 'acc_1' } },
];

describe('task creation workflow', () => {
  describe('the happy path: quote accepted → funds reserved → task created', () => {
    it('a recorded intent locks the quote', () => spec.given([]).when(requested).then([acceptQuote]));
    it('a locked quote reserves its max_amount under the task id', () => spec.given([requested]).when(locked).then([reserveFunds]));
    it('reserved funds create the task from the intent and the locked terms', () =>
      spec.given([requested, locked]).when(reserved).then([{ type: 'CreateTask', data: created }]));
    it('a created task ends the workflow', () => spec.given([requested, locked, reserved]).when(taskCreated).then([]));
    it('TaskCreated carries the terms (with the quantity the margin report costs), the title, the bill id and the time of the reservation', () => {
      expect(created).toEqual({
        task_id: 'task_01',
        bill_id: 'bill_01',
        account_id: 'acc_1',
        connection_id: 'key_1',
        quote_id: 'qt_1',
        model: 'img-1',
        resolved_model: 'img-1@2026',
        capability: 'image.generate',
        modality: 'image',
        title: 'a title',
        price_version: 'v1',
        quantity: 2,
        unit: 'image',
        currency: 'CNY',
        estimated_amount: '0.020000',
        max_amount: '0.030000',
        params: { prompt: 'x' },
        asset_ids: ['ast_1'],
        voice_id: null,
        created_at: AT,
      });
    });
  });

  describe('refusals', () => {
    it.each(['NOT_FOUND', 'QUOTE_EXPIRED', 'QUOTE_ALREADY_USED'])('a quote refused with %s rejects the creation with that code', (code) =>
      spec
        .given([requested])
        .when({ type: 'QuoteRefused', data: { task_id: 'task_01', code, message: 'no' } })
        .then([{ type: 'RejectCreation', data: { task_id: 'task_01', account_id: 'acc_1', code, message: 'no' } }]));

    it('funds refused (spent meanwhile) reject the creation with INSUFFICIENT_FUNDS', () =>
      spec
        .given([requested, locked])
        .when({ type: 'FundsRefused', data: { task_id: 'task_01', code: 'INSUFFICIENT_FUNDS', message: 'short' } })
        .then([{ type: 'RejectCreation', data: { task_id: 'task_01', account_id: 'acc_1', code: 'INSUFFICIENT_FUNDS', message: 'short' } }]));

    it('a reservation id already closed (voided by a rollback) reads as a used quote', () =>
      spec
        .given([requested, locked])
        .when({ type: 'FundsRefused', data: { task_id: 'task_01', code: 'CONFLICT', message: 'closed' } })
        .then([{ type: 'RejectCreation', data: { task_id: 'task_01', account_id: 'acc_1', code: 'QUOTE_ALREADY_USED', message: 'closed' } }]));

    it('a rejected creation gives back the quote lock and the reservation, then closes', () =>
      spec.given([requested, locked]).when(rejected('INSUFFICIENT_FUNDS')).then(giveBack));

    it('a rolled-back creation sends nothing more', () => spec.given([requested, rejected('QUOTE_EXPIRED')]).when(rolledBack).then([]));

    it('a creation another executor created meanwhile stands: a late refusal changes nothing', () =>
      spec.given([requested, locked, taskCreated]).when({ type: 'FundsRefused', data: { task_id: 'task_01', code: 'INSUFFICIENT_FUNDS', message: 'x' } }).then([]));

    it('a creation another executor rejected meanwhile is rolled back, even after the funds were reserved', () =>
      spec.given([requested, locked, reserved]).when(rejected('INSUFFICIENT_FUNDS')).then(giveBack));
  });

  describe('crash recovery: a runner resumes from what is stored', () => {
    // After a crash the runner finds the intent and the task stream's events, and nothing of
    // the in-memory outcomes (QuoteLocked, FundsReserved): the idempotent steps run again.
    it('an intent without outcome (crash after the intent, the lock or the reservation) starts over with the quote lock', () =>
      spec.given([]).when(requested).then([acceptQuote]));

    it('a rejected but not rolled-back creation (crash during the rollback) gives back again', () =>
      spec.given([requested]).when(rejected('INSUFFICIENT_FUNDS')).then(giveBack));

    it('a created task (crash after TaskCreated) needs nothing', () => spec.given([requested]).when(taskCreated).then([]));

    it('a rolled-back creation needs nothing', () => spec.given([requested, rejected('NOT_FOUND')]).when(rolledBack).then([]));

    it('a resumed run sends the same steps as the first one', () => {
      // The stored inputs after a crash are a prefix of the first run's inputs; folding the
      // outcomes of the repeated (idempotent) steps leads to the same commands.
      const run = (inputs: CreationInput[]) => {
        let state = taskCreationWorkflow.initialState();
        return inputs.flatMap((input) => {
          state = taskCreationWorkflow.evolve(state, input);
          return taskCreationWorkflow.decide(input, state);
        });
      };
      expect(run([requested, locked, reserved, taskCreated])).toEqual([acceptQuote, reserveFunds, { type: 'CreateTask', data: created }]);
      expect(run([requested, locked, rejected('INSUFFICIENT_FUNDS'), rolledBack])).toEqual([acceptQuote, reserveFunds, ...giveBack]);
    });
  });

  it('inputs before the intent or repeated change nothing', () => {
    spec.given([]).when(locked).then([]);
    spec.given([requested, locked]).when(requested).then([]);
  });
});
