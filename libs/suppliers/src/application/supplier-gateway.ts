import { Injectable } from '@nestjs/common';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { Clock, EventStore, handleCommand, isoTime, loadAggregate, streamName } from '@gensvc/shared';
import { SUPPLIER_JOB_STREAM, SupplierGateway, type CancelAnswer, type SupplierJobRequest } from '../contracts/supplier-gateway';
import { supplierJobDecider } from '../domain/supplier-job';
import { LOCAL_CHANNEL } from '../infrastructure/local/local-supplier.channel';
import { LocalSupplierControls } from '../infrastructure/local/local-supplier.controls';
import { SupplierSettings } from '../supplier-settings';
import { SupplierChannels } from './supplier-channel';
import { SupplierJobRunner } from './submit-job/supplier-job-runner';

/**
 * The suppliers context as the tasks context sees it: `submit` queues a job on the model's
 * supplier channel (recorded as SupplierJobQueued; the runner and the worker reactor take
 * it from there), `requestCancel` records the cancellation the job's state allows.
 */
@Injectable()
export class SupplierGatewayService extends SupplierGateway {
  constructor(
    private readonly events: EventStore,
    private readonly catalogue: Catalogue,
    private readonly clock: Clock,
    private readonly settings: SupplierSettings,
    private readonly channels: SupplierChannels,
    private readonly controls: LocalSupplierControls,
    private readonly runner: SupplierJobRunner,
  ) {
    super();
  }

  override async submit(request: SupplierJobRequest): Promise<void> {
    const stream = streamName(SUPPLIER_JOB_STREAM, request.taskId);
    const { state } = await loadAggregate(this.events, stream, supplierJobDecider);
    if (state.status !== 'none') return; // idempotent per task (also after a cancel tombstone)
    // A model that left the catalogue (or lost the capability) since the quote still gets a
    // job, on no channel: the runner fails it with SUPPLIER_UNAVAILABLE (the caller's saga
    // must not be stuck retrying a submit).
    const found = this.catalogue.model(request.modelId);
    const model = found && found.capabilities.includes(request.capability) ? found : { id: request.modelId, supplier: '' };
    const now = this.clock.now();
    const deadlineMs = this.channels.get(model.supplier)?.deadlineMs ?? this.settings.jobDeadlineMs;
    const result = await handleCommand(this.events, stream, supplierJobDecider, { type: 'QueueJob', data: { task_id: request.taskId, account_id: request.accountId, supplier: model.supplier, model: model.id, capability: request.capability, params: request.params, deadline_at: isoTime(new Date(now.getTime() + deadlineMs)), local_behavior: model.supplier === LOCAL_CHANNEL ? this.controls.take() : undefined }, metadata: { now: now } });
    if (result.events.length) this.runner.schedule(request.taskId);
  }

  override async requestCancel(taskId: string, accountId = ''): Promise<CancelAnswer> {
    const result = await handleCommand(this.events, streamName(SUPPLIER_JOB_STREAM, taskId), supplierJobDecider, { type: 'RequestCancel', data: { task_id: taskId, account_id: accountId }, metadata: { now: this.clock.now() } });
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
