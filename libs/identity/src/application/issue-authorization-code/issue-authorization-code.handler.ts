import { Injectable } from '@nestjs/common';
import { EventStore, handleCommand } from '@gensvc/event-sourcing';
import { newId, type Command } from '@gensvc/kernel';
import { formatCredential, hashSecret, idBody } from '../../domain/credentials';
import { oauthGrantDecider } from '../../domain/oauth-grant';
import { oauthGrantStream } from '../identity-streams';
import { CODE_TTL_MS, grantSecret } from '../oauth-grants';

/** After consent on the authorization page: the account grants the client these scopes. */
export type IssueAuthorizationCodeCommand = Command<
  'IssueAuthorizationCode',
  { readonly client_id: string; readonly account_id: string; readonly scopes: readonly string[]; readonly redirect_uri: string; readonly code_challenge: string | null }
>;

/** A new grant (`oauthgrant-<grant_id>`, OAuthCodeIssued) with a single-use authorization code; answers the code. */
@Injectable()
export class IssueAuthorizationCodeHandler {
  constructor(private readonly events: EventStore) {}

  async execute(cmd: IssueAuthorizationCodeCommand): Promise<string> {
    const grantId = newId('grant');
    const code = formatCredential('gsc', idBody(grantId), grantSecret());
    const { now } = cmd.metadata;
    await handleCommand(this.events, oauthGrantStream(grantId), oauthGrantDecider, {
      type: 'IssueCode',
      data: { grant_id: grantId, ...cmd.data, code_hash: hashSecret(code), expires_at: new Date(now.getTime() + CODE_TTL_MS) },
      metadata: cmd.metadata,
    });
    return code;
  }
}
