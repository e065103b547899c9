import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AppError, isServiceFault } from '@gensvc/kernel';
import { AssetRegistry, type UsableAsset } from '@gensvc/assets/contracts';
import { VoiceRegistry } from '@gensvc/voices/contracts';
import type { JobInfo } from '../domain/supplier-job';
import { JobInputError } from './supplier-channel';

/** Largest input file a supplier job reads (the upload limit). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * What channels need from the other contexts: reading input assets, storing outputs as the
 * account's assets, resolving and registering voices. Input problems become
 * `JobInputError` (the job fails with INVALID_INPUT); anything else is retried.
 */
@Injectable()
export class JobResources {
  constructor(
    private readonly assets: AssetRegistry,
    private readonly voiceRegistry: VoiceRegistry,
  ) {}

  async inputAssets(job: JobInfo, ids: readonly string[]): Promise<{ asset: UsableAsset; body: Buffer }[]> {
    let assets: UsableAsset[];
    try {
      assets = await this.assets.requireUsable(job.accountId, ids, 'input.asset_ids');
    } catch (err) {
      if (err instanceof AppError && !isServiceFault(err.code)) throw new JobInputError(err.message);
      throw err;
    }
    const out: { asset: UsableAsset; body: Buffer }[] = [];
    for (const asset of assets) {
      if (asset.size > MAX_INPUT_BYTES) throw new JobInputError(`input.asset_ids: ${asset.id} is larger than ${MAX_INPUT_BYTES} bytes`);
      out.push({ asset, body: await readAll(await this.assets.open(asset.id), MAX_INPUT_BYTES) });
    }
    return out;
  }

  /**
   * Stores an output as the account's asset, streamed and type-checked (a file of a type the
   * service does not serve fails with UNSUPPORTED_MEDIA_TYPE or FILE_TYPE_MISMATCH).
   */
  /**
   * Input files as a provider takes them: signed links to the service's own file links when
   * the deployment is public, data URIs (`data:<mime>;base64,…`) when PUBLIC_BASE_URL is
   * local (a provider could not reach a local link, CONTRACT §7).
   */
  async inputLinks(job: JobInfo, ids: readonly string[], asData: boolean): Promise<string[]> {
    if (!asData) {
      try {
        await this.assets.requireUsable(job.accountId, ids, 'input.asset_ids');
      } catch (err) {
        if (err instanceof AppError && !isServiceFault(err.code)) throw new JobInputError(err.message);
        throw err;
      }
      return ids.map((id) => this.assets.link(id));
    }
    return (await this.inputAssets(job, ids)).map(({ asset, body }) => `data:${asset.mime};base64,${body.toString('base64')}`);
  }

  storeOutput(job: JobInfo, index: number, name: string, mime: string, body: Buffer | Readable, maxBytes?: number): Promise<string> {
    return this.assets.registerOutput({ accountId: job.accountId, taskId: job.taskId, index, name, mime, body, maxBytes });
  }

  /** The supplier's own id of a voice the job uses; `channel` is the channel that runs it (default: the job's). */
  async voice(job: JobInfo, voiceId: string, channel = job.supplier): Promise<string> {
    try {
      return (await this.voiceRegistry.requireUsable(job.accountId, voiceId, channel)).supplierVoiceId;
    } catch (err) {
      if (err instanceof AppError && !isServiceFault(err.code)) throw new JobInputError(err.message);
      throw err;
    }
  }

  /** Registers a voice a job made, bound to the channel that made it (default: the job's). */
  registerVoice(job: JobInfo, supplierVoiceId: string, name: string, channel = job.supplier): Promise<string> {
    return this.voiceRegistry.register({ accountId: job.accountId, taskId: job.taskId, supplier: channel, supplierVoiceId, name });
  }
}

export async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += b.length;
    if (size > limit) {
      stream.destroy();
      throw new JobInputError(`an input file is larger than ${limit} bytes`);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}
