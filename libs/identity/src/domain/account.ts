import './identity-events.v1';
import { AppError } from '@gensvc/shared';
import type { Decider } from '@gensvc/shared';

/** Events of the `account-<id>` stream. */
export type AccountEvent =
  | {
      readonly type: 'AccountOpened';
      readonly data: {
        readonly account_id: string;
        readonly name: string;
        readonly email: string | null;
        /** scrypt hash (see infrastructure/password-hasher.ts), null without a login. */
        readonly password_hash: string | null;
        readonly opened_at: string;
      };
    }
  | { readonly type: 'AccountClosed'; readonly data: { readonly account_id: string; readonly closed_at: string } };

export type AccountState =
  | { readonly status: 'none' }
  | { readonly status: 'active' | 'closed'; readonly accountId: string; readonly name: string; readonly email: string | null; readonly passwordHash: string | null };

export type AccountCommand =
  | { readonly type: 'OpenAccount'; readonly accountId: string; readonly name: string; readonly email: string | null; readonly passwordHash: string | null; readonly now: Date }
  | { readonly type: 'CloseAccount'; readonly now: Date };

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,63}$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function validEmail(email: string): boolean {
  return EMAIL.test(email) && email.length <= 254;
}

export const accountDecider: Decider<AccountState, AccountCommand, AccountEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'AccountOpened':
        return { status: 'active', accountId: event.data.account_id, name: event.data.name, email: event.data.email, passwordHash: event.data.password_hash };
      case 'AccountClosed':
        return state.status === 'none' ? state : { ...state, status: 'closed' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'OpenAccount': {
        if (state.status !== 'none') throw new AppError('CONFLICT', `account ${command.accountId} already exists`);
        const name = command.name.trim();
        if (name.length < 1 || name.length > 200) throw new AppError('VALIDATION_ERROR', 'name must be 1 to 200 characters');
        if ((command.email === null) !== (command.passwordHash === null)) {
          throw new AppError('VALIDATION_ERROR', 'email and password go together');
        }
        if (command.email !== null && !validEmail(command.email)) throw new AppError('VALIDATION_ERROR', 'email is not a valid address');
        return [
          {
            type: 'AccountOpened',
            data: { account_id: command.accountId, name, email: command.email, password_hash: command.passwordHash, opened_at: command.now.toISOString() },
          },
        ];
      }
      case 'CloseAccount': {
        if (state.status === 'none') throw new AppError('NOT_FOUND', 'account not found');
        if (state.status === 'closed') return [];
        return [{ type: 'AccountClosed', data: { account_id: state.accountId, closed_at: command.now.toISOString() } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};

/**
 * Events of the `accountemail-<sha256(email)>` stream: the event store's optimistic
 * concurrency makes an email belong to one account only (no read model needed, so the
 * admin CLI can check it without running projections).
 */
export type EmailClaimEvent = { readonly type: 'AccountEmailClaimed'; readonly data: { readonly email: string; readonly account_id: string } };
export type EmailClaimState = { readonly accountId: string | null };
export type EmailClaimCommand = { readonly type: 'ClaimEmail'; readonly email: string; readonly accountId: string };

export const emailClaimDecider: Decider<EmailClaimState, EmailClaimCommand, EmailClaimEvent> = {
  initialState: () => ({ accountId: null }),
  evolve: (state, event) => (state.accountId ? state : { accountId: event.data.account_id }),
  decide(command, state) {
    if (state.accountId === command.accountId) return [];
    if (state.accountId) throw new AppError('CONFLICT', 'email is already used by another account');
    return [{ type: 'AccountEmailClaimed', data: { email: command.email, account_id: command.accountId } }];
  },
};
