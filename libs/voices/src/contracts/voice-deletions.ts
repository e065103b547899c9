/**
 * Queued voice deletions, for the context that carries them out at the supplier channel that
 * made the voice (suppliers, on `VoiceDeletionRequested`). The voices context does not know
 * who that is: it records the deletion as done when told.
 */
export abstract class VoiceDeletions {
  /** The supplier channel and its own voice id of a voice whose deletion is queued; null when none is (unknown, active, deleted). */
  abstract queued(voiceId: string): Promise<{ supplier: string; supplierVoiceId: string } | null>;
  /** Records the queued deletion as carried out (VoiceDeleted); for a voice not being deleted (a repeat) it changes nothing. */
  abstract complete(voiceId: string): Promise<void>;
}
