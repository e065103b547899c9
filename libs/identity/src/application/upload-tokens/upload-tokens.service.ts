import { Injectable } from '@nestjs/common';
import { Clock } from '@gensvc/kernel';
import { UploadTokens } from '../../contracts/upload-tokens';
import { IssueUploadTokenHandler } from '../issue-upload-token/issue-upload-token.handler';

/** The identity context's `UploadTokens` port for the assets context: issuing is one use case's handler. */
@Injectable()
export class UploadTokensService extends UploadTokens {
  constructor(
    private readonly clock: Clock,
    private readonly issueUploadToken: IssueUploadTokenHandler,
  ) {
    super();
  }

  override issue(grant: { accountId: string; connectionId: string; uploadId: string; expiresAt: Date }): Promise<string> {
    return this.issueUploadToken.execute({
      type: 'IssueUploadToken',
      data: { account_id: grant.accountId, connection_id: grant.connectionId, upload_id: grant.uploadId, expires_at: grant.expiresAt },
      metadata: { now: this.clock.now() },
    });
  }
}
