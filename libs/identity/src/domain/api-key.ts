import './identity-events.v1';
import { AppError } from '@gensvc/shared';
import type { Decider } from '@gensvc/shared';

/** Events of the `apikey-<key id>` stream. The key itself is never stored, only its SHA-256. */
export type ApiKeyEvent =
  | {
      readonly type: 'ApiKeyIssued';
      readonly data: { readonly key_id: string; readonly account_id: string; readonly secret_hash: string; readonly issued_at: string };
    }
  | { readonly type: 'ApiKeyRevoked'; readonly data: { readonly key_id: string; readonly account_id: string; readonly revoked_at: string } };

export type ApiKeyState =
  | { readonly status: 'none' }
  | { readonly status: 'active' | 'revoked'; readonly keyId: string; readonly accountId: string; readonly secretHash: string };

export type ApiKeyCommand =
  | { readonly type: 'IssueApiKey'; readonly keyId: string; readonly accountId: string; readonly secretHash: string; readonly now: Date }
  | { readonly type: 'RevokeApiKey'; readonly keyId: string; readonly now: Date };

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyIssued':
        return { status: 'active', keyId: event.data.key_id, accountId: event.data.account_id, secretHash: event.data.secret_hash };
      case 'ApiKeyRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'IssueApiKey':
        if (state.status !== 'none') throw new AppError('CONFLICT', `key ${command.keyId} already exists`);
        if (!/^[0-9a-f]{64}$/.test(command.secretHash)) throw new Error('secretHash must be a SHA-256 hex digest');
        return [
          {
            type: 'ApiKeyIssued',
            data: { key_id: command.keyId, account_id: command.accountId, secret_hash: command.secretHash, issued_at: command.now.toISOString() },
          },
        ];
      case 'RevokeApiKey':
        if (state.status === 'none') throw new AppError('NOT_FOUND', `key ${command.keyId} not found`);
        if (state.status === 'revoked') return [];
        return [{ type: 'ApiKeyRevoked', data: { key_id: state.keyId, account_id: state.accountId, revoked_at: command.now.toISOString() } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
