import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import { SUPPLIER_JOB_EVENT_TYPES, type SupplierJobEvent } from '../../contracts/supplier-gateway';

export const SUPPLIER_JOBS = 'supplier_jobs';

/** One document per supplier job: what the runner resumes after a restart. */
export interface SupplierJobDoc extends Record<string, unknown> {
  task_id: string;
  account_id: string;
  supplier: string | null;
  /** The channel that runs (or is being sent) the job: the supplier, or a provider route's channel. */
  channel?: string | null;
  status: 'queued' | 'dispatched' | 'succeeded' | 'failed' | 'canceled';
  cancel: 'none' | 'checking' | 'refused' | 'unconfirmed';
  updated_at: string;
}

const projection = documentProjection<SupplierJobDoc, SupplierJobEvent>({
  name: 'suppliers.jobs',
  collection: SUPPLIER_JOBS,
  handles: SUPPLIER_JOB_EVENT_TYPES,
  indexes: [{ keys: { status: 1 } }, { keys: { channel: 1, status: 1 } }],
  // A stored event without a task id (never written by this service) changes no document.
  documentId: (e) => e.data.task_id ?? null,
  evolve(doc, e) {
    const base: SupplierJobDoc = doc ?? {
      task_id: e.data.task_id,
      account_id: e.data.account_id,
      supplier: null,
      status: 'queued',
      cancel: 'none',
      updated_at: e.data.at,
    };
    const next = { ...base, updated_at: e.data.at };
    switch (e.type) {
      case 'SupplierJobQueued':
        return { ...next, supplier: e.data.supplier, channel: e.data.supplier, status: 'queued' };
      case 'SupplierJobSubmitting':
        return { ...next, channel: e.data.channel };
      case 'SupplierJobDispatched':
        return { ...next, status: 'dispatched', ...(e.data.channel ? { channel: e.data.channel } : {}) };
      case 'SupplierCancelChecking':
        return { ...next, cancel: 'checking' };
      case 'SupplierCancelRefused':
        return { ...next, cancel: 'refused' };
      case 'SupplierCancelUnconfirmed':
        return { ...next, cancel: 'unconfirmed' };
      case 'SupplierJobSucceeded':
        return { ...next, status: 'succeeded' };
      case 'SupplierJobFailed':
        return { ...next, status: 'failed' };
      case 'SupplierJobCanceled':
        return { ...next, status: 'canceled' };
      default:
        return doc;
    }
  },
});

@Injectable()
@AsProjection()
export class SupplierJobsProjection extends ProjectionProvider {
  protected readonly inner = projection;
}
