import { Injectable } from '@nestjs/common';
import { EventStore, handleCommand } from '@gensvc/event-sourcing';
import { streamName, type Command } from '@gensvc/kernel';
import { SUPPLIER_JOB_STREAM, type CancelAnswer } from '../../contracts/supplier-gateway';
import { supplierJobDecider } from '../../domain/supplier-job';
import { SupplierJobRunner } from '../submit-job/supplier-job-runner';

/** A task's cancellation (`SupplierGateway.requestCancel`); `account_id` is '' when the caller does not know it. */
export type CancelJobCommand = Command<'CancelJob', { readonly task_id: string; readonly account_id: string }>;

/**
 * Records the cancellation the job's state allows: a job no supplier holds yet is canceled
 * at once (or, never submitted, stands as a tombstone); a dispatched one is asked for (the
 * runner asks its supplier and records the answer); a finished one stays as it is.
 */
@Injectable()
export class CancelJobHandler {
  constructor(
    private readonly events: EventStore,
    private readonly runner: SupplierJobRunner,
  ) {}

  async execute(cmd: CancelJobCommand): Promise<CancelAnswer> {
    const taskId = cmd.data.task_id;
    const result = await handleCommand(this.events, streamName(SUPPLIER_JOB_STREAM, taskId), supplierJobDecider, {
      type: 'RequestCancel',
      data: { task_id: taskId, account_id: cmd.data.account_id },
      metadata: { now: cmd.metadata.now },
    });
    if (result.events.length) this.runner.schedule(taskId);
    switch (result.state.status) {
      case 'canceled':
        return 'canceled';
      case 'dispatched':
        return 'requested';
      default:
        return 'finished';
    }
  }
}
