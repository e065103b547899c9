import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { isVoiceId, voiceDecider, voiceIdForTask, type VoiceEvent } from './voice';

const spec = DeciderSpecification.for(voiceDecider);
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:05.000Z';
const created: VoiceEvent = {
  type: 'VoiceCreated',
  data: { voice_id: 'voice_01jabcdefghij', account_id: 'acc_1', task_id: 'task_01jabcdefghij', supplier: 'local', supplier_voice_id: 'lv1-150-50-0011223344556677', name: 'Ann', at: T0 },
};
const requested: VoiceEvent = { type: 'VoiceDeletionRequested', data: { voice_id: 'voice_01jabcdefghij', account_id: 'acc_1', at: T1 } };
const create = { type: 'CreateVoice' as const, data: { voice_id: 'voice_01jabcdefghij', account_id: 'acc_1', task_id: 'task_01jabcdefghij', supplier: 'local', supplier_voice_id: 'lv1-150-50-0011223344556677', name: 'Ann' }, metadata: { now: new Date(T0) } };

describe('voice decider', () => {
  it('creates a voice once per task', () => {
    spec.given([]).when(create).then([created]);
    spec.given([created]).when(create).then([]);
  });

  it('queues the deletion of an active voice not in use', () => spec.given([created]).when({ type: 'RequestVoiceDeletion', data: { in_use: false }, metadata: { now: new Date(T1) } }).then([requested]));

  it('refuses to delete a voice an unfinished task uses', () =>
    spec.given([created]).when({ type: 'RequestVoiceDeletion', data: { in_use: true }, metadata: { now: new Date(T1) } }).thenThrows('VOICE_IN_USE'));

  it('repeating a deletion is harmless, also once deleted', () => {
    spec.given([created, requested]).when({ type: 'RequestVoiceDeletion', data: { in_use: true }, metadata: { now: new Date(T1) } }).then([]);
    spec.given([created, requested, { type: 'VoiceDeleted', data: { voice_id: 'voice_01jabcdefghij', account_id: 'acc_1', at: T1 } }]).when({ type: 'RequestVoiceDeletion', data: { in_use: false }, metadata: { now: new Date(T1) } }).then([]);
  });

  it('an unknown voice cannot be deleted', () => spec.given([]).when({ type: 'RequestVoiceDeletion', data: { in_use: false }, metadata: { now: new Date(T1) } }).thenThrows('NOT_FOUND'));

  it('completes only a queued deletion, once', () => {
    spec.given([created, requested]).when({ type: 'CompleteVoiceDeletion', data: {}, metadata: { now: new Date(T1) } }).then([{ type: 'VoiceDeleted', data: { voice_id: 'voice_01jabcdefghij', account_id: 'acc_1', at: T1 } }]);
    spec.given([created]).when({ type: 'CompleteVoiceDeletion', data: {}, metadata: { now: new Date(T1) } }).then([]);
  });

  it('derives one voice id per task', () => {
    expect(voiceIdForTask('task_01jabcdefghijk')).toBe('voice_01jabcdefghijk');
    expect(voiceIdForTask('weird id')).toMatch(/^voice_[0-9a-f]{26}$/);
    expect(isVoiceId(voiceIdForTask('weird id'))).toBe(true);
    expect(isVoiceId('voice_../x')).toBe(false);
  });
});
