import { createHash } from 'node:crypto';
import type { RecordedEvent } from '@gensvc/kernel';
import { taskObjectAfter, type TaskIntegrationEvent } from '@gensvc/tasks/contracts';
import type { AssetEvent, UploadEvent } from '@gensvc/assets/contracts';
import type { VoiceEvent } from '@gensvc/voices/contracts';
import type { WebhookEventType } from '../../domain/endpoints';

/** Stored events a message can come from. Terminal task messages wait for the settlement. */
export const SOURCE_EVENT_TYPES = ['TaskCreated', 'TaskStarted', 'TaskSettled', 'UploadCompleted', 'AssetDeleted', 'VoiceDeleted'] as const;

export interface MessageContent {
  readonly type: WebhookEventType;
  readonly data: Record<string, unknown>;
}

type Source = TaskIntegrationEvent | { type: 'TaskSettled'; data: { task_id: string; account_id: string } } | UploadEvent | AssetEvent | VoiceEvent;

/** The account a source event belongs to, or null. */
export const accountOf = (event: RecordedEvent): string | null => {
  const id = (event.data as { account_id?: unknown }).account_id;
  return typeof id === 'string' ? id : null;
};

/**
 * What a source event tells the account's endpoints, from stored data only: for task events
 * the task object as it was right after the event (`taskStream`: the task's stream up to and
 * including it), for the others the event's own facts.
 */
export function messageContent(event: RecordedEvent, taskStream?: readonly { type: string; data: unknown }[]): MessageContent | null {
  const e = { type: event.type, data: event.data } as Source;
  switch (e.type) {
    case 'TaskCreated':
    case 'TaskStarted':
    case 'TaskSettled': {
      const task = taskStream ? taskObjectAfter(taskStream) : null;
      if (!task) return null;
      if (e.type === 'TaskCreated') return { type: 'task.created', data: { ...task } };
      if (e.type === 'TaskStarted') return { type: 'task.running', data: { ...task } };
      if (task.status === 'succeeded' || task.status === 'failed' || task.status === 'canceled') return { type: `task.${task.status}`, data: { ...task } };
      return null;
    }
    case 'UploadCompleted':
      return {
        type: 'upload.completed',
        data: {
          upload_id: e.data.upload_id,
          status: 'completed',
          asset_id: e.data.asset_id,
          name: e.data.name,
          mime: e.data.mime,
          size: e.data.size,
          checksum: e.data.checksum,
          completed_at: e.data.completed_at,
        },
      };
    case 'AssetDeleted':
      return { type: 'asset.deleted', data: { id: e.data.asset_id, deleted: true, deleted_at: e.data.deleted_at } };
    case 'VoiceDeleted':
      return { type: 'voice.deleted', data: { id: e.data.voice_id, deleted: true, deleted_at: e.data.at } };
    default:
      return null;
  }
}

/** The message body, built once: `{"type", "timestamp", "data"}` (CONTRACT §10). */
export const messageBody = (content: MessageContent, timestamp: string): string => JSON.stringify({ type: content.type, timestamp, data: content.data });

const digest = (...parts: string[]): string => createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 26);

/** One message per source event (its webhook-id), one delivery per message and endpoint; stable across redelivery. */
export const messageIdFor = (sourceEventId: string): string => `msg_${digest('message', sourceEventId)}`;
export const deliveryIdFor = (sourceEventId: string, endpointId: string): string => `whd_${digest('delivery', sourceEventId, endpointId)}`;
