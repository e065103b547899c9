import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { Clock } from '@gensvc/shared';
import { AssetRegistry, type UsableAsset } from '../../contracts/asset-registry';
import { OpenAssetHandler } from '../open-asset/open-asset.handler';
import { RegisterOutputHandler } from '../register-output/register-output.handler';
import { UsableAssetsHandler } from '../usable-assets/usable-assets.handler';

/** The assets context's port for other contexts (quoting, tasks, suppliers), on its use cases. */
@Injectable()
export class AssetRegistryService extends AssetRegistry {
  constructor(
    private readonly usableAssets: UsableAssetsHandler,
    private readonly openAsset: OpenAssetHandler,
    private readonly registerOutputs: RegisterOutputHandler,
    private readonly clock: Clock,
  ) {
    super();
  }

  override requireUsable(accountId: string, assetIds: readonly string[], field = 'input.asset_ids'): Promise<UsableAsset[]> {
    return this.usableAssets.execute({ account_id: accountId, asset_ids: assetIds, field });
  }

  override open(assetId: string): Promise<Readable> {
    return this.openAsset.execute({ asset_id: assetId });
  }

  override registerOutput(output: { accountId: string; taskId: string; index: number; name: string; mime: string; body: Buffer }): Promise<string> {
    return this.registerOutputs.execute({
      type: 'RegisterOutput',
      data: { account_id: output.accountId, task_id: output.taskId, index: output.index, name: output.name, mime: output.mime, body: output.body },
      metadata: { now: this.clock.now() },
    });
  }
}
