/**
 * Published language: the task lifecycle as other contexts hear it. The tasks context writes
 * these events (stream `task-<task_id>`); lower contexts (assets and voices track which
 * unfinished tasks use them) consume them from here, so that none of them imports the tasks
 * context (which depends on them). Persisted contract: type strings and fields only grow
 * (new optional fields) or get a new version.
 */
export const TASK_STREAM = 'task';

export interface TaskCreatedData {
  readonly task_id: string;
  readonly account_id: string;
  /** API key id or OAuth grant id that created the task. */
  readonly connection_id: string;
  readonly quote_id: string;
  readonly model: string;
  readonly resolved_model: string;
  readonly capability: string;
  readonly modality: string;
  readonly title: string | null;
  readonly price_version: string;
  /** The quote's quantity in pricing units (absent on tasks created before it was recorded). */
  readonly quantity?: number;
  /** The quote's pricing unit (absent on tasks created before it was recorded). */
  readonly unit?: string;
  readonly currency: 'CNY';
  readonly estimated_amount: string;
  readonly max_amount: string;
  /** The validated input with defaults applied (input merged with options). */
  readonly params: Record<string, unknown>;
  /** Assets the task reads (from params.asset_ids), [] when none. */
  readonly asset_ids: readonly string[];
  /** Voice the task uses (params.voice_id), null when none. */
  readonly voice_id: string | null;
  readonly created_at: string;
}

export interface TaskOutput {
  readonly asset_ids: readonly string[];
  readonly text?: string;
  readonly voice_id?: string;
}

export type TaskIntegrationEvent =
  | { type: 'TaskCreated'; data: TaskCreatedData }
  | { type: 'TaskStarted'; data: { task_id: string; account_id: string; at: string } }
  | { type: 'TaskSucceeded'; data: { task_id: string; account_id: string; output: TaskOutput; at: string } }
  | { type: 'TaskFailed'; data: { task_id: string; account_id: string; error: { code: string; message: string }; at: string } }
  | { type: 'TaskCanceled'; data: { task_id: string; account_id: string; at: string } };

/** Event types after which a task no longer runs (assets and voices it used are free again). */
export const TASK_TERMINAL_EVENTS = ['TaskSucceeded', 'TaskFailed', 'TaskCanceled'] as const;
