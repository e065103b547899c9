import { Injectable } from '@nestjs/common';
import { Clock } from '@gensvc/kernel';
import { ReadStore } from '@gensvc/event-sourcing';
import { SCOPES, type Principal, type Scope } from '@gensvc/http';
import { parseCredential, secretMatches } from '../../domain/credentials';
import { ACCESS_TOKENS, ACCOUNTS, API_KEYS, OAUTH_GRANTS, type AccessTokenDoc, type AccountDoc, type ApiKeyDoc, type OAuthGrantDoc } from '../read-models';

/** The read models a bearer credential is checked against. */
const CREDENTIAL_MODELS = [API_KEYS, ACCESS_TOKENS, OAUTH_GRANTS, ACCOUNTS] as const;
/** How many accepted credentials are remembered (the oldest forgotten first). */
const REMEMBERED = 10_000;

interface Accepted {
  readonly principal: Principal;
  /** The read models' change stamp taken before they were read. */
  readonly stamp: number;
  /** When an access token expires (ms); API keys do not. */
  readonly expiresAt?: number;
}

/**
 * Checks presented credentials against the identity read models (fed by the event store
 * within one poll interval, so keys created or revoked by the admin CLI count at once).
 *
 * On a read store that gives change stamps (the embedded one), an accepted credential is
 * remembered with the stamp of those read models taken before they were read, and accepted
 * again without reading them while the stamp is unchanged: any change of a key, token, grant
 * or account (here or in another process, a revocation included) makes every credential be
 * checked again, and an access token still expires on time. Refused credentials are never
 * remembered.
 */
@Injectable()
export class Authenticator {
  private readonly accepted = new Map<string, Accepted>();

  constructor(
    private readonly readStore: ReadStore,
    private readonly clock: Clock,
  ) {}

  /** An account API key or an OAuth access token; null when unknown, revoked or expired. */
  async verifyBearer(token: string): Promise<Principal | null> {
    const stamp = this.readStore.changeStamp?.(CREDENTIAL_MODELS);
    if (stamp === undefined) return (await this.check(token))?.principal ?? null;
    const known = this.accepted.get(token);
    if (known && known.stamp === stamp && (known.expiresAt === undefined || known.expiresAt > this.clock.now().getTime())) return known.principal;
    if (known) this.accepted.delete(token);
    const checked = await this.check(token);
    if (!checked) return null;
    if (this.accepted.size >= REMEMBERED) this.accepted.delete(this.accepted.keys().next().value as string);
    this.accepted.set(token, { ...checked, stamp });
    return checked.principal;
  }

  /** Reads the credential's records: the principal, and when it expires (access tokens). */
  private async check(token: string): Promise<{ principal: Principal; expiresAt?: number } | null> {
    const parsed = parseCredential(token);
    if (!parsed) return null;
    if (parsed.kind === 'gsk') {
      const keyId = `key_${parsed.id}`;
      const key = await this.readStore.collection<ApiKeyDoc>(API_KEYS).findOne({ _id: keyId });
      if (!key || !secretMatches(token, key.secret_hash) || key.status !== 'active') return null;
      if (!(await this.accountActive(key.account_id))) return null;
      return { principal: frozen({ accountId: key.account_id, kind: 'api_key', connectionId: keyId, scopes: [...SCOPES] }) };
    }
    if (parsed.kind === 'gsa') {
      const doc = await this.readStore.collection<AccessTokenDoc>(ACCESS_TOKENS).findOne({ _id: `at_${parsed.id}` });
      if (!doc || !secretMatches(token, doc.secret_hash) || doc.revoked) return null;
      const expiresAt = Date.parse(doc.expires_at);
      if (expiresAt <= this.clock.now().getTime()) return null;
      if (!(await this.grantActive(doc.grant_id, doc.account_id))) return null;
      const scopes = doc.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
      return { principal: frozen({ accountId: doc.account_id, kind: 'oauth', connectionId: doc.grant_id, scopes, clientId: doc.client_id }), expiresAt };
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

/** A principal shared by the requests that present the same credential: nobody may change it. */
function frozen(p: Principal): Principal {
  Object.freeze(p.scopes);
  return Object.freeze(p);
}
