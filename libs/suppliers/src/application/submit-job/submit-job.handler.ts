import { Injectable } from '@nestjs/common';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { EventStore, handleCommand, loadAggregate } from '@gensvc/event-sourcing';
import { isoTime, streamName, type Command } from '@gensvc/kernel';
import { SUPPLIER_JOB_STREAM } from '../../contracts/supplier-gateway';
import { supplierJobDecider } from '../../domain/supplier-job';
import { LOCAL_CHANNEL } from '../../infrastructure/local/local-supplier.channel';
import { LocalSupplierControls } from '../../infrastructure/local/local-supplier.controls';
import { SupplierSettings } from '../../supplier-settings';
import { SupplierChannels } from '../supplier-channel';
import { SupplierJobRunner } from './supplier-job-runner';

/** A task's job for its supplier (`SupplierGateway.submit`). */
export type SubmitJobCommand = Command<
  'SubmitJob',
  {
    readonly task_id: string;
    readonly account_id: string;
    /** Catalogue model id; the model's supplier channel runs the job. */
    readonly model_id: string;
    readonly capability: string;
    /** Validated input with defaults. */
    readonly params: Record<string, unknown>;
  }
>;

/**
 * Queues a job on the model's supplier channel (SupplierJobQueued, with its deadline) and
 * hands it to the runner; the worker reactor hands it over too (other processes, restarts).
 * Idempotent per task, also after a cancellation tombstone.
 */
@Injectable()
export class SubmitJobHandler {
  constructor(
    private readonly events: EventStore,
    private readonly catalogue: Catalogue,
    private readonly settings: SupplierSettings,
    private readonly channels: SupplierChannels,
    private readonly controls: LocalSupplierControls,
    private readonly runner: SupplierJobRunner,
  ) {}

  async execute(cmd: SubmitJobCommand): Promise<void> {
    const { task_id: taskId, account_id: accountId, model_id: modelId, capability, params } = cmd.data;
    const stream = streamName(SUPPLIER_JOB_STREAM, taskId);
    const { state } = await loadAggregate(this.events, stream, supplierJobDecider);
    if (state.status !== 'none') return; // idempotent per task (also after a cancel tombstone)
    // A model that left the catalogue (or lost the capability) since the quote still gets a
    // job, on no channel: the runner fails it with SUPPLIER_UNAVAILABLE (the caller's saga
    // must not be stuck retrying a submit).
    const found = this.catalogue.model(modelId);
    const model = found && found.capabilities.includes(capability) ? found : { id: modelId, supplier: '' };
    const now = cmd.metadata.now;
    const deadlineMs = this.channels.get(model.supplier)?.deadlineMs ?? this.settings.jobDeadlineMs;
    const result = await handleCommand(this.events, stream, supplierJobDecider, {
      type: 'QueueJob',
      data: {
        task_id: taskId,
        account_id: accountId,
        supplier: model.supplier,
        model: model.id,
        capability,
        params,
        deadline_at: isoTime(new Date(now.getTime() + deadlineMs)),
        local_behavior: model.supplier === LOCAL_CHANNEL ? this.controls.take() : undefined,
      },
      metadata: { now },
    });
    if (result.events.length) this.runner.schedule(taskId);
  }
}
