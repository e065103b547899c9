/**
 * How the tasks context hands work to suppliers and hears back. The suppliers context runs
 * each job (built-in local supplier, or an external HTTP supplier with callbacks and
 * polling), stores output files as the account's assets and cloned voices as voices, and
 * records every outcome as an event on stream `supplierjob-<task_id>`. The tasks context
 * reacts to those events (never to in-memory callbacks).
 */
export interface SupplierJobRequest {
  readonly taskId: string;
  readonly accountId: string;
  /** Catalogue model id; the adapter resolves the supplier and its model name itself. */
  readonly modelId: string;
  readonly capability: string;
  /** Validated input with defaults (asset_ids / voice_id included when the schema has them). */
  readonly params: Record<string, unknown>;
}

export type CancelAnswer =
  /** The job was not dispatched yet: it never will be; SupplierJobCanceled is recorded. */
  | 'canceled'
  /** The supplier holds the job: the outcome follows as SupplierCancel* / SupplierJob* events. */
  | 'requested'
  /** The job already finished (its outcome event exists or is about to). */
  | 'finished';

export abstract class SupplierGateway {
  /** Queues the job for its supplier channel. Idempotent per taskId. */
  abstract submit(request: SupplierJobRequest): Promise<void>;
  /**
   * Asks to cancel. Idempotent. `accountId` (optional) is recorded when the job was never
   * submitted: the cancellation then stands as a tombstone and a later `submit` does nothing.
   */
  abstract requestCancel(taskId: string, accountId?: string): Promise<CancelAnswer>;
}

export const SUPPLIER_JOB_STREAM = 'supplierjob';

export interface SupplierJobOutput {
  readonly asset_ids: readonly string[];
  readonly text?: string;
  readonly voice_id?: string;
}

/**
 * `SupplierJobQueued` data. The optional fields are the suppliers context's own bookkeeping
 * (what to run and until when); other contexts should read only the first four.
 */
export interface SupplierJobQueuedData {
  readonly task_id: string;
  readonly account_id: string;
  /** Supplier channel ("local" or a configured HTTP channel name). Internal; never shown to callers. */
  readonly supplier: string;
  readonly at: string;
  readonly model?: string;
  readonly capability?: string;
  readonly params?: Record<string, unknown>;
  /** After this time the job fails with SUPPLIER_TIMEOUT. */
  readonly deadline_at?: string;
  /** Test switches of the built-in local supplier armed for this job (absent normally). */
  readonly local_behavior?: { readonly outcome?: 'fail' | 'hang'; readonly cancel?: 'refuse' | 'unconfirmed' };
}

/**
 * Error codes a failed job carries (`SupplierJobFailed.data.error.code`, shown as the
 * task's `error.code`): SUPPLIER_TIMEOUT (deadline passed), SUPPLIER_ERROR (the supplier
 * failed), SUPPLIER_REJECTED (the supplier refused the request), SUPPLIER_CANCELED (the
 * supplier dropped the job on its own), SUPPLIER_UNAVAILABLE (no such channel configured),
 * INVALID_INPUT (an input asset or voice could not be used).
 */
export type SupplierJobErrorCode =
  | 'SUPPLIER_TIMEOUT'
  | 'SUPPLIER_ERROR'
  | 'SUPPLIER_REJECTED'
  | 'SUPPLIER_CANCELED'
  | 'SUPPLIER_UNAVAILABLE'
  | 'INVALID_INPUT';

/** Events on `supplierjob-<task_id>`; all carry task_id and account_id. */
export type SupplierJobEvent =
  | { type: 'SupplierJobQueued'; data: SupplierJobQueuedData }
  /**
   * A provider route is about to be sent the job (a request that creates a provider job).
   * Until `SupplierJobDispatched` or `SupplierJobNotTaken` follows, the provider may hold a
   * job whose answer was lost: it is never sent blindly again (CONTRACT §14).
   */
  | { type: 'SupplierJobSubmitting'; data: { task_id: string; account_id: string; channel: string; route: number; at: string } }
  /**
   * The route did not take the job: it answered without taking it (429, 5xx, 401/403, 404, a
   * refused connection), or it could not be sent it (its input mapping failed). The route is
   * tried again from `retry_at`, or, when `route_spent`, not again: the next route is tried
   * (CONTRACT §14: 3 attempts or 30 seconds on a route). Written before the last two fields
   * were, an event without them counts as an attempt to retry at once.
   */
  | {
      type: 'SupplierJobNotTaken';
      data: { task_id: string; account_id: string; channel: string; route: number; reason: string; at: string; retry_at?: string; route_spent?: boolean };
    }
  /**
   * The supplier holds the job now (the task is running). On a provider route: which channel
   * and route took it, the provider's job id and the route's unit cost (internal bookkeeping,
   * never shown to accounts).
   */
  | {
      type: 'SupplierJobDispatched';
      data: {
        task_id: string;
        account_id: string;
        at: string;
        channel?: string;
        route?: number;
        supplier_model?: string;
        remote_id?: string;
        unit_cost?: string;
      };
    }
  | { type: 'SupplierJobSucceeded'; data: { task_id: string; account_id: string; output: SupplierJobOutput; at: string } }
  | { type: 'SupplierJobFailed'; data: { task_id: string; account_id: string; error: { code: string; message: string }; at: string } }
  /** Cancellation confirmed: the supplier did not and will not do the work. */
  | { type: 'SupplierJobCanceled'; data: { task_id: string; account_id: string; at: string } }
  /** The supplier was asked to cancel and is being checked. */
  | { type: 'SupplierCancelChecking'; data: { task_id: string; account_id: string; at: string } }
  | { type: 'SupplierCancelRefused'; data: { task_id: string; account_id: string; at: string } }
  | { type: 'SupplierCancelUnconfirmed'; data: { task_id: string; account_id: string; at: string } };

export const SUPPLIER_JOB_EVENT_TYPES: readonly SupplierJobEvent['type'][] = [
  'SupplierJobQueued',
  'SupplierJobSubmitting',
  'SupplierJobNotTaken',
  'SupplierJobDispatched',
  'SupplierJobSucceeded',
  'SupplierJobFailed',
  'SupplierJobCanceled',
  'SupplierCancelChecking',
  'SupplierCancelRefused',
  'SupplierCancelUnconfirmed',
];
