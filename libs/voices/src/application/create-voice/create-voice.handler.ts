import { Injectable } from '@nestjs/common';
import { withoutControlCharacters, type Command } from '@gensvc/kernel';
import { voiceIdForTask } from '../../domain/voice';
import { VoiceStore } from '../voice-store';

/** Records the voice a voice-cloning task made. */
export type CreateVoiceCommand = Command<
  'CreateVoice',
  { readonly account_id: string; readonly task_id: string; readonly supplier: string; readonly supplier_voice_id: string; readonly name: string }
>;

/**
 * VoiceCreated on `voice-<voice_id>`, the id derived from the task: idempotent per task (a
 * repeat answers the same id). The name is trimmed to 100 characters ("Cloned voice" when empty);
 * it comes from a task's input, accepted before, so control characters are dropped rather
 * than refused (CONTRACT §17: names never carry them).
 */
@Injectable()
export class CreateVoiceHandler {
  constructor(private readonly voices: VoiceStore) {}

  async execute(cmd: CreateVoiceCommand): Promise<string> {
    const { account_id: accountId, task_id: taskId, name } = cmd.data;
    const voiceId = voiceIdForTask(taskId);
    const result = await this.voices.handle(voiceId, {
      type: 'CreateVoice',
      data: { ...cmd.data, voice_id: voiceId, name: withoutControlCharacters(name).trim().slice(0, 100) || 'Cloned voice' },
      metadata: cmd.metadata,
    });
    if (result.state.status !== 'none' && result.state.accountId !== accountId) throw new Error(`voice ${voiceId} belongs to another account`);
    return voiceId;
  }
}
