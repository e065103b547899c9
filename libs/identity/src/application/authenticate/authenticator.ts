import { Injectable } from '@nestjs/common';
import { Clock, ReadStore, SCOPES, type Principal, type Scope } from '@gensvc/shared';
import { parseCredential, secretMatches } from '../../domain/credentials';
import { ACCESS_TOKENS, ACCOUNTS, API_KEYS, OAUTH_GRANTS, type AccessTokenDoc, type AccountDoc, type ApiKeyDoc, type OAuthGrantDoc } from '../read-models';

/**
 * Checks presented credentials against the identity read models (fed by the event store
 * within one poll interval, so keys created or revoked by the admin CLI count at once).
 */
@Injectable()
export class Authenticator {
  constructor(
    private readonly readStore: ReadStore,
    private readonly clock: Clock,
  ) {}

  /** An account API key or an OAuth access token; null when unknown, revoked or expired. */
  async verifyBearer(token: string): Promise<Principal | null> {
    const parsed = parseCredential(token);
    if (!parsed) return null;
    if (parsed.kind === 'gsk') {
      const keyId = `key_${parsed.id}`;
      const key = await this.readStore.collection<ApiKeyDoc>(API_KEYS).findOne({ _id: keyId });
      if (!key || !secretMatches(token, key.secret_hash) || key.status !== 'active') return null;
      if (!(await this.accountActive(key.account_id))) return null;
      return { accountId: key.account_id, kind: 'api_key', connectionId: keyId, scopes: [...SCOPES] };
    }
    if (parsed.kind === 'gsa') {
      const doc = await this.readStore.collection<AccessTokenDoc>(ACCESS_TOKENS).findOne({ _id: `at_${parsed.id}` });
      if (!doc || !secretMatches(token, doc.secret_hash) || doc.revoked) return null;
      if (Date.parse(doc.expires_at) <= this.clock.now().getTime()) return null;
      if (!(await this.grantActive(doc.grant_id, doc.account_id))) return null;
      const scopes = doc.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
      return { accountId: doc.account_id, kind: 'oauth', connectionId: doc.grant_id, scopes, clientId: doc.client_id };
    }
    return null;
  }

  /** Whether the account and the connection (API key or OAuth grant) that acted are still valid. */
  async connectionValid(accountId: string, connectionId: string): Promise<boolean> {
    if (connectionId.startsWith('key_')) {
      const key = await this.readStore.collection<ApiKeyDoc>(API_KEYS).findOne({ _id: connectionId });
      return !!key && key.status === 'active' && key.account_id === accountId && (await this.accountActive(accountId));
    }
    if (connectionId.startsWith('grant_')) return this.grantActive(connectionId, accountId);
    return false;
  }

  async accountActive(accountId: string): Promise<boolean> {
    const account = await this.readStore.collection<AccountDoc>(ACCOUNTS).findOne({ _id: accountId });
    return !!account && account.status === 'active';
  }

  private async grantActive(grantId: string, accountId: string): Promise<boolean> {
    const grant = await this.readStore.collection<OAuthGrantDoc>(OAUTH_GRANTS).findOne({ _id: grantId });
    return !!grant && grant.status === 'active' && grant.account_id === accountId && (await this.accountActive(accountId));
  }
}
