import { Injectable } from '@nestjs/common';
import { AsProjection, documentProjection, type Projection, type ProjectionTarget, type RecordedEvent } from '@gensvc/shared';
import type { AccountEvent } from '../domain/account';
import type { ApiKeyEvent } from '../domain/api-key';
import { ACCOUNTS, API_KEYS, type AccountDoc, type ApiKeyDoc } from './read-models';

/** Base for providers that wrap a `documentProjection`. */
abstract class WrappedProjection implements Projection {
  protected abstract readonly inner: Projection;
  get name() {
    return this.inner.name;
  }
  get collections() {
    return this.inner.collections;
  }
  get handles() {
    return this.inner.handles;
  }
  setup(target: ProjectionTarget) {
    return this.inner.setup?.(target) ?? Promise.resolve();
  }
  apply(event: RecordedEvent, target: ProjectionTarget) {
    return this.inner.apply(event, target);
  }
}

/** Accounts: whether an account is still active (every credential check reads it). */
@AsProjection()
@Injectable()
export class AccountsProjection extends WrappedProjection {
  protected readonly inner = documentProjection<Omit<AccountDoc, '_id'>>({
    name: 'identity.accounts',
    collection: ACCOUNTS,
    handles: ['AccountOpened', 'AccountClosed'],
    documentId: (e) => (e.data as { accountId: string }).accountId,
    evolve(doc, event) {
      const e = event as unknown as AccountEvent;
      switch (e.type) {
        case 'AccountOpened':
          return { name: e.data.name, email: e.data.email, status: 'active', opened_at: e.data.openedAt };
        case 'AccountClosed':
          return doc ? { ...doc, status: 'closed' } : null;
      }
    },
  });
}

/** API keys by key id: the hash to compare with and whether the key is revoked. */
@AsProjection()
@Injectable()
export class ApiKeysProjection extends WrappedProjection {
  protected readonly inner = documentProjection<Omit<ApiKeyDoc, '_id'>>({
    name: 'identity.api_keys',
    collection: API_KEYS,
    handles: ['ApiKeyIssued', 'ApiKeyRevoked'],
    documentId: (e) => (e.data as { keyId: string }).keyId,
    indexes: [{ keys: { account_id: 1 } }],
    evolve(doc, event) {
      const e = event as unknown as ApiKeyEvent;
      switch (e.type) {
        case 'ApiKeyIssued':
          return { account_id: e.data.accountId, secret_hash: e.data.secretHash, status: 'active', issued_at: e.data.issuedAt, revoked_at: null };
        case 'ApiKeyRevoked':
          return doc ? { ...doc, status: 'revoked', revoked_at: e.data.revokedAt } : null;
      }
    },
  });
}
