/** The wallet as the API shows it: exactly these four fields. */
export interface WalletView {
  readonly currency: 'CNY';
  readonly balance: string;
  readonly reserved: string;
  readonly available: string;
}

/** What other contexts (and the admin CLI) may ask of the wallet context. */
export abstract class WalletCommands {
  /** Adds funds (admin credit). `amount` is a positive CNY decimal string. */
  abstract credit(accountId: string, amount: string, reason?: string): Promise<WalletView>;
  abstract view(accountId: string): Promise<WalletView>;
}
