import { Injectable } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { type RecordedEvent } from '@gensvc/kernel';
import { SupplierJobRunner } from './supplier-job-runner';

/**
 * Hands stored job events to the runner: a queued job to start, a cancellation to check.
 * Covers jobs queued by another process (the admin CLI, a second instance) and redelivery
 * after a restart; scheduling is idempotent and every step re-reads the job's stream, so
 * a redelivered event never makes a supplier do the work twice.
 */
@Injectable()
@AsReactor()
export class SupplierJobWorker implements Reactor {
  readonly name = 'suppliers.worker';
  readonly handles = ['SupplierJobQueued', 'SupplierCancelChecking'];

  constructor(private readonly runner: SupplierJobRunner) {}

  async handle(event: RecordedEvent): Promise<void> {
    const taskId = (event.data as { task_id?: string }).task_id;
    if (taskId) this.runner.schedule(taskId);
  }
}
