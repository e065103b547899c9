import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { Clock, type RecordedEvent } from '@gensvc/kernel';
import { SupplierVoiceRemover } from '../../contracts/supplier-voice-remover';
import { VoiceStore } from '../voice-store';

/**
 * Carries out queued voice deletions: removes the voice at its supplier channel (when one
 * is wired), then records VoiceDeleted. Idempotent: a redelivered request finds the voice
 * deleted and does nothing; a failing supplier makes the engine retry with backoff.
 */
@Injectable()
@AsReactor()
export class VoiceDeletionReactor implements Reactor {
  readonly name = 'voices.deletion';
  readonly handles = ['VoiceDeletionRequested'];
  /** One worker asks the supplier to delete (a lease across the processes sharing the stores), not every worker. */
  readonly exclusive = true;
  private readonly logger = new Logger('VoiceDeletion');
  private remover: SupplierVoiceRemover | null | undefined;

  constructor(
    private readonly voices: VoiceStore,
    private readonly clock: Clock,
    private readonly moduleRef: ModuleRef,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    const voiceId = (event.data as { voice_id: string }).voice_id;
    const voice = await this.voices.load(voiceId);
    if (!voice || voice.status !== 'deleting') return;
    const remover = this.supplierRemover();
    if (remover) await remover.remove(voice.supplier, voice.supplierVoiceId);
    await this.voices.handle(voiceId, { type: 'CompleteVoiceDeletion', data: {}, metadata: { now: this.clock.now() } });
    this.logger.log({ voiceId }, 'voice deleted');
  }

  private supplierRemover(): SupplierVoiceRemover | null {
    if (this.remover === undefined) {
      try {
        this.remover = this.moduleRef.get(SupplierVoiceRemover, { strict: false });
      } catch {
        this.remover = null;
      }
    }
    return this.remover ?? null;
  }
}
