import './identity-events.v1';
import { AppError } from '@gensvc/kernel';
import type { Command, Decider } from '@gensvc/kernel';

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
  | Command<'IssueApiKey', { readonly key_id: string; readonly account_id: string; readonly secret_hash: string }>
  | Command<'RevokeApiKey', { readonly key_id: string }>;

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
        if (state.status !== 'none') throw new AppError('CONFLICT', `key ${command.data.key_id} already exists`);
        if (!/^[0-9a-f]{64}$/.test(command.data.secret_hash)) throw new Error('secret_hash must be a SHA-256 hex digest');
        return [
          {
            type: 'ApiKeyIssued',
            data: { key_id: command.data.key_id, account_id: command.data.account_id, secret_hash: command.data.secret_hash, issued_at: command.metadata.now.toISOString() },
          },
        ];
      case 'RevokeApiKey':
        if (state.status === 'none') throw new AppError('NOT_FOUND', `key ${command.data.key_id} not found`);
        if (state.status === 'revoked') return [];
        return [{ type: 'ApiKeyRevoked', data: { key_id: state.keyId, account_id: state.accountId, revoked_at: command.metadata.now.toISOString() } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
