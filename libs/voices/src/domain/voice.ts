import { createHash } from 'node:crypto';
import { AppError, type Command, type Decider } from '@gensvc/kernel';

export const VOICE_STREAM = 'voice';

/**
 * A voice: made by a voice-cloning task, owned by its account, bound to the supplier
 * channel that made it. Deletion: active → deleting (queued, 202) → deleted (once the voice
 * is removed at its supplier channel: the suppliers context reacts to VoiceDeletionRequested
 * and completes it). A voice in use by an unfinished task cannot start deleting.
 */
export type VoiceEvent =
  | {
      type: 'VoiceCreated';
      data: { voice_id: string; account_id: string; task_id: string; supplier: string; supplier_voice_id: string; name: string; at: string };
    }
  | { type: 'VoiceDeletionRequested'; data: { voice_id: string; account_id: string; at: string } }
  | { type: 'VoiceDeleted'; data: { voice_id: string; account_id: string; at: string } };

export const VOICE_EVENT_TYPES: readonly VoiceEvent['type'][] = ['VoiceCreated', 'VoiceDeletionRequested', 'VoiceDeleted'];

export interface Voice {
  readonly voiceId: string;
  readonly accountId: string;
  readonly taskId: string;
  readonly supplier: string;
  readonly supplierVoiceId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly deletionRequestedAt: string | null;
  readonly deletedAt: string | null;
}

export type VoiceState = { readonly status: 'none' } | ({ readonly status: 'active' | 'deleting' | 'deleted' } & Voice);

export type VoiceCommand =
  | Command<
      'CreateVoice',
      {
        readonly voice_id: string;
        readonly account_id: string;
        readonly task_id: string;
        readonly supplier: string;
        readonly supplier_voice_id: string;
        readonly name: string;
      }
    >
  /** `in_use`: an unfinished task uses the voice (from the usage read model). */
  | Command<'RequestVoiceDeletion', { readonly in_use: boolean }>
  | Command<'CompleteVoiceDeletion', Record<string, never>>;

/** The voice made by a task: one per task, so registering twice yields the same id. */
export function voiceIdForTask(taskId: string): string {
  const m = /^task_([0-9a-z]{10,60})$/.exec(taskId);
  return `voice_${m ? m[1] : createHash('sha256').update(taskId).digest('hex').slice(0, 26)}`;
}

export const isVoiceId = (id: string): boolean => /^voice_[0-9a-z]{10,60}$/.test(id);

export function decide(command: VoiceCommand, state: VoiceState): VoiceEvent[] {
  switch (command.type) {
    case 'CreateVoice':
      if (state.status !== 'none') return [];
      return [
        {
          type: 'VoiceCreated',
          data: {
            voice_id: command.data.voice_id,
            account_id: command.data.account_id,
            task_id: command.data.task_id,
            supplier: command.data.supplier,
            supplier_voice_id: command.data.supplier_voice_id,
            name: command.data.name,
            at: command.metadata.now.toISOString(),
          },
        },
      ];
    case 'RequestVoiceDeletion':
      if (state.status === 'none') throw new AppError('NOT_FOUND', 'voice not found');
      if (state.status !== 'active') return [];
      if (command.data.in_use) throw new AppError('VOICE_IN_USE', `voice ${state.voiceId} is used by a task that has not finished; delete it after the task ends`);
      return [{ type: 'VoiceDeletionRequested', data: { voice_id: state.voiceId, account_id: state.accountId, at: command.metadata.now.toISOString() } }];
    case 'CompleteVoiceDeletion':
      if (state.status !== 'deleting') return [];
      return [{ type: 'VoiceDeleted', data: { voice_id: state.voiceId, account_id: state.accountId, at: command.metadata.now.toISOString() } }];
    default: {
      const never: never = command;
      throw new Error(`unknown command ${JSON.stringify(never)}`);
    }
  }
}

export function evolve(state: VoiceState, event: VoiceEvent): VoiceState {
  switch (event.type) {
    case 'VoiceCreated':
      if (state.status !== 'none') return state;
      return {
        status: 'active',
        voiceId: event.data.voice_id,
        accountId: event.data.account_id,
        taskId: event.data.task_id,
        supplier: event.data.supplier,
        supplierVoiceId: event.data.supplier_voice_id,
        name: event.data.name,
        createdAt: event.data.at,
        deletionRequestedAt: null,
        deletedAt: null,
      };
    case 'VoiceDeletionRequested':
      if (state.status !== 'active') return state;
      return { ...state, status: 'deleting', deletionRequestedAt: event.data.at };
    case 'VoiceDeleted':
      if (state.status !== 'deleting') return state;
      return { ...state, status: 'deleted', deletedAt: event.data.at };
    default: {
      const never: never = event;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}

export const voiceDecider: Decider<VoiceState, VoiceCommand, VoiceEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
