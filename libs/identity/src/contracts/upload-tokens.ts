/**
 * Upload credentials: an `X-Upload-Token` valid only for PUT /v1/uploads/{uploadId}/content,
 * until `expiresAt`, and only while the account and the connection (API key or OAuth grant)
 * that prepared the upload remain valid. The routes declare `@UploadTokenAuth()`.
 */
export abstract class UploadTokens {
  abstract issue(grant: { accountId: string; connectionId: string; uploadId: string; expiresAt: Date }): Promise<string>;
}
