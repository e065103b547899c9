import { Injectable } from '@nestjs/common';
import { ReadStore } from '@gensvc/event-sourcing';
import { SUPPLIER_JOBS, type SupplierJobDoc } from './supplier-jobs.projection';

/** The supplier jobs not finished yet (queued or dispatched): what the job runner resumes at start. */
@Injectable()
export class OpenJobsHandler {
  constructor(private readonly readStore: ReadStore) {}

  /** Their task ids, from the `supplier_jobs` read model. */
  async execute(): Promise<string[]> {
    const open = await this.readStore.collection<SupplierJobDoc & { _id: string }>(SUPPLIER_JOBS).find({ status: { $in: ['queued', 'dispatched'] } });
    return open.map((job) => job.task_id);
  }
}
