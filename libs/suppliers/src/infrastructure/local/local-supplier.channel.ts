import { Injectable } from '@nestjs/common';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { SupplierJobOutput } from '../../contracts/supplier-gateway';
import type { JobInfo } from '../../domain/supplier-job';
import { JobResources } from '../../application/job-outputs';
import { JobInputError, SupplierChannel, type ActiveJob, type JobContext, type StepResult } from '../../application/supplier-channel';
import { LocalSupplierControls } from './local-supplier.controls';
import { generateText } from './generators/text';
import { renderPng } from './generators/png';
import { cloneVoice, DEFAULT_VOICE, synthesizeSpeech, voiceFromId } from './generators/wav';

export const LOCAL_CHANNEL = 'local';

/**
 * The built-in supplier: really produces the output (text, PNG, WAV, voices) in-process.
 * A job waits LOCAL_SUPPLIER_DELAY_MS queued, is dispatched (running), works for the same
 * time again, then stores its outputs and succeeds. A cancellation asked while it runs is
 * answered after half the delay: confirmed, or refused / left unconfirmed when the job was
 * armed so by `LocalSupplierControls`. Delays count from when this process first saw the
 * job in a state, so after a restart a job waits its delay again.
 */
@Injectable()
export class LocalSupplierChannel extends SupplierChannel {
  readonly name = LOCAL_CHANNEL;

  constructor(
    private readonly controls: LocalSupplierControls,
    private readonly resources: JobResources,
  ) {
    super();
  }

  async step(state: ActiveJob, ctx: JobContext): Promise<StepResult> {
    const rt = ctx.runtime;
    const now = Date.now();
    const delay = this.controls.delayMs;
    if (state.status === 'queued') {
      const seen = (rt.queuedSeen ??= now) as number;
      if (now < seen + delay) return { inMs: seen + delay - now };
      const after = await ctx.record({ type: 'DispatchJob', data: {} });
      if (after.status !== 'dispatched') return 'done';
      rt.runningSeen = Date.now();
      return { inMs: delay };
    }
    const behavior = state.job.localBehavior;
    const running = (rt.runningSeen ??= now) as number;
    if (state.cancel === 'checking') {
      const checking = (rt.checkingSeen ??= now) as number;
      const answerAt = checking + Math.floor(delay / 2);
      if (now < answerAt) return { inMs: answerAt - now };
      const outcome = behavior.cancel === 'refuse' ? 'refused' : behavior.cancel === 'unconfirmed' ? 'unconfirmed' : 'canceled';
      const after = await ctx.record({ type: 'ResolveCancel', data: { outcome } });
      return after.status === 'dispatched' ? { inMs: 0 } : 'done';
    }
    if (behavior.outcome === 'hang') return 'wait';
    if (now < running + delay) return { inMs: running + delay - now };
    if (behavior.outcome === 'fail') {
      await ctx.record({ type: 'FailJob', data: { error: { code: 'SUPPLIER_ERROR', message: 'the supplier could not complete the job' } } });
      return 'done';
    }
    let output: SupplierJobOutput;
    try {
      output = await this.produce(state.job);
    } catch (err) {
      if (!(err instanceof JobInputError)) throw err;
      await ctx.record({ type: 'FailJob', data: { error: { code: 'INVALID_INPUT', message: err.message } } });
      return 'done';
    }
    await ctx.record({ type: 'CompleteJob', data: { output } });
    return 'done';
  }

  /** Local voices live only in their ids: nothing to delete. */
  async deleteVoice(): Promise<void> {}

  /** Makes the job's output; repeatable (same bytes, and outputs are stored idempotently per index). */
  async produce(job: JobInfo): Promise<SupplierJobOutput> {
    const p = job.params;
    switch (job.capability) {
      case 'text.generate': {
        const text = generateText({
          prompt: String(p.prompt ?? ''),
          max_tokens: typeof p.max_tokens === 'number' ? p.max_tokens : undefined,
          temperature: typeof p.temperature === 'number' ? p.temperature : undefined,
          tone: typeof p.tone === 'string' ? p.tone : undefined,
        });
        const id = await this.resources.storeOutput(job, 0, 'output.txt', 'text/plain', Buffer.from(text, 'utf8'));
        return { asset_ids: [id], text };
      }
      case 'image.generate': {
        const count = Number.isInteger(p.count) && (p.count as number) > 0 ? Math.min(p.count as number, 16) : 1;
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          await yieldToLoop();
          const png = renderPng(
            {
              prompt: String(p.prompt ?? ''),
              negative_prompt: typeof p.negative_prompt === 'string' ? p.negative_prompt : undefined,
              size: typeof p.size === 'string' ? p.size : undefined,
              seed: typeof p.seed === 'number' ? p.seed : undefined,
              asset_ids: Array.isArray(p.asset_ids) ? (p.asset_ids as string[]) : undefined,
            },
            i,
          );
          ids.push(await this.resources.storeOutput(job, i, `image-${i + 1}.png`, 'image/png', png));
        }
        return { asset_ids: ids };
      }
      case 'speech.synthesize': {
        let voice = DEFAULT_VOICE;
        if (typeof p.voice_id === 'string' && p.voice_id) {
          voice = voiceFromId(await this.resources.voice(job, p.voice_id)) ?? DEFAULT_VOICE;
        }
        const wav = synthesizeSpeech(
          { text: String(p.text ?? ''), speed: typeof p.speed === 'number' ? p.speed : 1, sample_rate: typeof p.sample_rate === 'number' ? p.sample_rate : 24000 },
          voice,
        );
        const id = await this.resources.storeOutput(job, 0, 'speech.wav', 'audio/wav', wav);
        return { asset_ids: [id] };
      }
      case 'voice.clone': {
        const ids = Array.isArray(p.asset_ids) ? (p.asset_ids as string[]) : [];
        if (ids.length !== 1) throw new JobInputError('input.asset_ids: exactly one audio asset is needed');
        if (p.consent_attested !== true) throw new JobInputError('input.consent_attested: must be true');
        const [{ asset, body }] = await this.resources.inputAssets(job, ids);
        if (!asset.mime.startsWith('audio/')) throw new JobInputError(`input.asset_ids[0]: ${asset.id} is not an audio file`);
        let cloned: ReturnType<typeof cloneVoice>;
        try {
          cloned = cloneVoice(body);
        } catch (err) {
          throw new JobInputError(`input.asset_ids[0]: ${(err as Error).message}`);
        }
        const name = typeof p.name === 'string' && p.name.trim() ? p.name.trim() : 'Cloned voice';
        const voiceId = await this.resources.registerVoice(job, cloned.supplierVoiceId, name);
        const preview = synthesizeSpeech({ text: `Hello, this is ${name}. This voice was cloned from your sample.`, sample_rate: 24000 }, cloned.voice);
        const previewId = await this.resources.storeOutput(job, 0, 'voice-preview.wav', 'audio/wav', preview);
        return { asset_ids: [previewId], voice_id: voiceId };
      }
      default:
        throw new JobInputError(`capability ${job.capability} is not offered by this model`);
    }
  }
}
