import { Injectable } from '@nestjs/common';
import type { Command } from '@gensvc/kernel';
import { UploadTokenSigner } from '../upload-token-signer';

/** An upload prepared by the assets context: a credential for PUT of its content only, until `expires_at`. */
export type IssueUploadTokenCommand = Command<
  'IssueUploadToken',
  { readonly account_id: string; readonly connection_id: string; readonly upload_id: string; readonly expires_at: Date }
>;

/** The signed `X-Upload-Token` for one upload (nothing is stored). */
@Injectable()
export class IssueUploadTokenHandler {
  constructor(private readonly signer: UploadTokenSigner) {}

  async execute(cmd: IssueUploadTokenCommand): Promise<string> {
    const { account_id: accountId, connection_id: connectionId, upload_id: uploadId, expires_at: expiresAt } = cmd.data;
    return this.signer.encode({ u: uploadId, a: accountId, c: connectionId, e: expiresAt.getTime() });
  }
}
