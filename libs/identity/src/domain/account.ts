import './identity-events.v1';
import { AppError, checkPlainText } from '@gensvc/kernel';
import type { Command, Decider } from '@gensvc/kernel';

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
  | Command<'OpenAccount', { readonly account_id: string; readonly name: string; readonly email: string | null; readonly password_hash: string | null }>
  | Command<'CloseAccount', Record<string, never>>;

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
        const d = command.data;
        if (state.status !== 'none') throw new AppError('CONFLICT', `account ${d.account_id} already exists`);
        const name = d.name.trim();
        if (name.length < 1 || name.length > 200) throw new AppError('VALIDATION_ERROR', 'name must be 1 to 200 characters');
        checkPlainText(name, 'name');
        if ((d.email === null) !== (d.password_hash === null)) {
          throw new AppError('VALIDATION_ERROR', 'email and password go together');
        }
        if (d.email !== null && !validEmail(d.email)) throw new AppError('VALIDATION_ERROR', 'email is not a valid address');
        return [
          {
            type: 'AccountOpened',
            data: { account_id: d.account_id, name, email: d.email, password_hash: d.password_hash, opened_at: command.metadata.now.toISOString() },
          },
        ];
      }
      case 'CloseAccount': {
        if (state.status === 'none') throw new AppError('NOT_FOUND', 'account not found');
        if (state.status === 'closed') return [];
        return [{ type: 'AccountClosed', data: { account_id: state.accountId, closed_at: command.metadata.now.toISOString() } }];
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
export type EmailClaimCommand = Command<'ClaimEmail', { readonly email: string; readonly account_id: string }>;

export const emailClaimDecider: Decider<EmailClaimState, EmailClaimCommand, EmailClaimEvent> = {
  initialState: () => ({ accountId: null }),
  evolve: (state, event) => (state.accountId ? state : { accountId: event.data.account_id }),
  decide(command, state) {
    if (state.accountId === command.data.account_id) return [];
    if (state.accountId) throw new AppError('CONFLICT', 'email is already used by another account');
    return [{ type: 'AccountEmailClaimed', data: { email: command.data.email, account_id: command.data.account_id } }];
  },
};
