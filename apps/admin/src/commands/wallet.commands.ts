import { AppError } from '@gensvc/kernel';
import { UsageError, requireFlag, type AdminCommand } from '../command';

/** `wallet credit --account ID --amount AMOUNT [--reason TEXT]`: the only way money enters a wallet. */
const walletCredit: AdminCommand = {
  words: ['wallet', 'credit'],
  usage: 'wallet credit --account ID --amount AMOUNT [--reason TEXT]',
  async run(use, flags) {
    const accountId = requireFlag(flags, 'account');
    const amount = requireFlag(flags, 'amount');
    const reason = flags.reason;
    if (reason !== undefined && (typeof reason !== 'string' || reason === '' || reason.length > 200)) {
      throw new UsageError('--reason needs a text of 1 to 200 characters');
    }
    if (!/^\d{1,12}(\.\d{1,6})?$/.test(amount) || /^0+(\.0+)?$/.test(amount)) {
      throw new AppError('VALIDATION_ERROR', '--amount must be a positive CNY amount with at most 6 decimals, like 100.00');
    }
    if (!(await use.getAccount.execute({ account_id: accountId }))) throw new AppError('NOT_FOUND', `account ${accountId} not found`);
    return use.wallet.credit(accountId, amount, reason);
  },
};

export const WALLET_COMMANDS: AdminCommand[] = [walletCredit];
