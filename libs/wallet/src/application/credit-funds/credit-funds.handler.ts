import { Injectable } from '@nestjs/common';
import { AppError, Money, type Command, type Micros } from '@gensvc/kernel';
import type { WalletView } from '../../contracts/wallet-commands';
import { WalletStream, walletView } from '../wallet-stream';

/** Adds funds to an account's wallet (the admin credit): a positive CNY decimal string. */
export type CreditFundsCommand = Command<'CreditFunds', { readonly account_id: string; readonly amount: string; readonly reason: string | null }>;

/** Parses a CNY amount given by an operator or caller; VALIDATION_ERROR naming `field`. */
export function parseAmount(text: string, field = 'amount'): Micros {
  if (!/^\d{1,12}(\.\d{1,6})?$/.test(text)) throw new AppError('VALIDATION_ERROR', `${field}: must be a CNY amount with at most 6 decimals, e.g. 100.00`);
  return Money.parse(text);
}

/** FundsCredited on `wallet-<account_id>`; answers the wallet after the credit. */
@Injectable()
export class CreditFundsHandler {
  constructor(private readonly wallets: WalletStream) {}

  async execute(cmd: CreditFundsCommand): Promise<WalletView> {
    const { account_id: accountId, amount, reason } = cmd.data;
    const micros = parseAmount(amount);
    const { state } = await this.wallets.handle(accountId, { type: 'Credit', data: { account_id: accountId, amount: micros, reason }, metadata: cmd.metadata });
    return walletView(state);
  }
}
