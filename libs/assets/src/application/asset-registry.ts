import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { Clock } from '@gensvc/shared';
import { AssetRegistry, type UsableAsset } from '../contracts/asset-registry';
import { InputAssetsHandler } from './input-assets/input-assets.handler';
import { RegisterOutputHandler } from './register-output/register-output.handler';

/** The assets context's port for other contexts (quoting, tasks, suppliers), on its use cases. */
@Injectable()
export class AssetRegistryService extends AssetRegistry {
  constructor(
    private readonly inputs: InputAssetsHandler,
    private readonly outputs: RegisterOutputHandler,
    private readonly clock: Clock,
  ) {
    super();
  }

  override requireUsable(accountId: string, assetIds: readonly string[], field = 'input.asset_ids'): Promise<UsableAsset[]> {
    return this.inputs.usable({ account_id: accountId, asset_ids: assetIds, field });
  }

  override open(assetId: string): Promise<Readable> {
    return this.inputs.open(assetId);
  }

  override registerOutput(output: { accountId: string; taskId: string; index: number; name: string; mime: string; body: Buffer }): Promise<string> {
    return this.outputs.execute({
      type: 'RegisterOutput',
      data: { account_id: output.accountId, task_id: output.taskId, index: output.index, name: output.name, mime: output.mime, body: output.body },
      metadata: { now: this.clock.now() },
    });
  }
}
