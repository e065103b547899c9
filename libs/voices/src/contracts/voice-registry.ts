/** What other contexts may ask of the voices context. */
export abstract class VoiceRegistry {
  /**
   * The caller's own active voice, usable with models of `supplier` (a voice is bound to
   * the supplier channel that made it). Throws VALIDATION_ERROR naming `input.voice_id`.
   */
  abstract requireUsable(accountId: string, voiceId: string, supplier: string | readonly string[]): Promise<{ id: string; supplierVoiceId: string }>;
  /** Records a voice made by a voice-cloning task. Idempotent per taskId (same voice id). */
  abstract register(voice: { accountId: string; taskId: string; supplier: string; supplierVoiceId: string; name: string }): Promise<string>;
}
