import { Injectable } from '@nestjs/common';
import { AsReactor, type Reactor } from '@gensvc/event-sourcing';
import { type RecordedEvent } from '@gensvc/kernel';
import type { UploadEvent } from '../../domain/upload';
import { AssetRecords } from '../asset-records';

/**
 * Completing an upload registers its asset right away; this reactor makes sure of it even
 * if the process stopped between the two appends. Registration is once per asset id, so a
 * deleted asset is never recreated.
 */
@AsReactor()
@Injectable()
export class UploadAssetsReactor implements Reactor {
  readonly name = 'assets.upload-assets';
  readonly handles = ['UploadCompleted'];

  constructor(private readonly records: AssetRecords) {}

  async handle(event: RecordedEvent): Promise<void> {
    const e = event as unknown as Extract<UploadEvent, { type: 'UploadCompleted' }>;
    const d = e.data;
    await this.records.register({
      asset_id: d.asset_id,
      account_id: d.account_id,
      name: d.name,
      mime: d.mime,
      size: d.size,
      checksum: d.checksum,
      blob_key: d.blob_key,
      source: { kind: 'upload', upload_id: d.upload_id },
      created_at: d.completed_at,
    });
  }
}
