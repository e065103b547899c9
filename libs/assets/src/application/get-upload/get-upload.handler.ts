import { Injectable } from '@nestjs/common';
import { UploadSessions, type UploadView } from '../upload-sessions';

export interface GetUploadQuery {
  readonly account_id: string;
  readonly upload_id: string;
}

/** GET /v1/uploads/{id}: the caller's upload with its effective status (and its asset once completed). */
@Injectable()
export class GetUploadHandler {
  constructor(private readonly sessions: UploadSessions) {}

  async execute(query: GetUploadQuery): Promise<UploadView> {
    return this.sessions.view(await this.sessions.owned(query.account_id, query.upload_id));
  }
}
