import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { Clock } from '@gensvc/kernel';
import { UploadLimits } from '../../domain/limits';
import { AssetLinks } from '../asset-links';
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
    private readonly limits: UploadLimits,
    private readonly links: AssetLinks,
  ) {
    super();
  }

  override requireUsable(accountId: string, assetIds: readonly string[], field = 'input.asset_ids'): Promise<UsableAsset[]> {
    return this.usableAssets.execute({ account_id: accountId, asset_ids: assetIds, field });
  }

  override open(assetId: string): Promise<Readable> {
    return this.openAsset.execute({ asset_id: assetId });
  }

  override link(assetId: string): string {
    return this.links.issue(assetId).url;
  }

  override registerOutput(output: Parameters<AssetRegistry['registerOutput']>[0]): Promise<string> {
    return this.registerOutputs.execute({
      type: 'RegisterOutput',
      data: {
        account_id: output.accountId,
        task_id: output.taskId,
        index: output.index,
        name: output.name,
        mime: output.mime,
        body: output.body,
        max_bytes: output.maxBytes ?? this.limits.maxFileBytes,
        timeout_ms: output.timeoutMs ?? 600_000,
      },
      metadata: { now: this.clock.now() },
    });
  }
}
