import type { Cancellation, TaskRecord } from '../domain/task';
import type { TaskOutput } from '../contracts/task-events';

/** The task object of CONTRACT.md §3. */
export interface TaskView {
  id: string;
  status: string;
  model: string;
  resolved_model: string;
  capability: string;
  modality: string;
  title: string | null;
  quote_id: string;
  price_version: string;
  currency: 'CNY';
  max_amount: string;
  charged_amount: string | null;
  settlement_status: string;
  cancellation: Cancellation;
  output: TaskOutput | null;
  error: { code: string; message: string } | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** A bill (GET /v1/billing), CONTRACT.md §3. */
export interface BillView {
  id: string;
  task_id: string;
  model: string;
  modality: string;
  currency: 'CNY';
  max_amount: string;
  charged_amount: string | null;
  released_amount: string | null;
  settlement_status: string;
  created_at: string;
  settled_at: string | null;
}

/** The cancel response: task_id, status, cancellation. */
export interface CancelView {
  task_id: string;
  status: string;
  cancellation: Cancellation;
}

export function taskView(t: Omit<TaskRecord, 'params'>): TaskView {
  return {
    id: t.task_id,
    status: t.status,
    model: t.model,
    resolved_model: t.resolved_model,
    capability: t.capability,
    modality: t.modality,
    title: t.title,
    quote_id: t.quote_id,
    price_version: t.price_version,
    currency: t.currency,
    max_amount: t.max_amount,
    charged_amount: t.charged_amount,
    settlement_status: t.settlement_status,
    cancellation: { ...t.cancellation },
    output: t.output ? outputView(t.output) : null,
    error: t.error ? { code: t.error.code, message: t.error.message } : null,
    created_at: t.created_at,
    updated_at: t.updated_at,
    completed_at: t.completed_at,
  };
}

function outputView(o: TaskOutput): TaskOutput {
  return {
    asset_ids: [...o.asset_ids],
    ...(o.voice_id !== undefined ? { voice_id: o.voice_id } : {}),
    ...(o.text !== undefined ? { text: o.text } : {}),
  };
}

export function billView(t: Omit<TaskRecord, 'params'>): BillView {
  return {
    id: t.bill_id,
    task_id: t.task_id,
    model: t.model,
    modality: t.modality,
    currency: t.currency,
    max_amount: t.max_amount,
    charged_amount: t.charged_amount,
    released_amount: t.released_amount,
    settlement_status: t.settlement_status,
    created_at: t.created_at,
    settled_at: t.settled_at,
  };
}
