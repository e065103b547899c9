import type { Request } from 'express';
import type { AppConfig } from '@gensvc/config';
import type { SharedCounters } from '@gensvc/http';

const SIGN_IN_WINDOW_MS = 15 * 60_000;

/**
 * Failed sign-ins are counted per account (the email as typed, lower-cased) and per client
 * address in 15-minute windows shared by every process; past SIGNIN_FAILURES_PER_ACCOUNT
 * or SIGNIN_FAILURES_PER_ADDRESS further attempts are refused (429, the password is not
 * even checked) until the window ends.
 */
export class SignInThrottle {
  constructor(
    private readonly config: AppConfig,
    private readonly counters: SharedCounters,
  ) {}

  /** The seconds to wait before signing in as `email` from this request's address, or 0. */
  throttled(req: Request, email: string): number {
    const { signInFailuresPerAccount: perAccount, signInFailuresPerAddress: perAddress } = this.config.rateLimits;
    const account = this.counters.peek(`signin:account:${email.trim().toLowerCase()}`, SIGN_IN_WINDOW_MS);
    const address = this.counters.peek(`signin:address:${req.ip ?? req.socket.remoteAddress}`, SIGN_IN_WINDOW_MS);
    const waits = [account.count >= perAccount ? account.resetInMs : 0, address.count >= perAddress ? address.resetInMs : 0];
    const wait = Math.max(...waits);
    return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : 0;
  }

  failed(req: Request, email: string): void {
    this.counters.hit(`signin:account:${email.trim().toLowerCase()}`, SIGN_IN_WINDOW_MS);
    this.counters.hit(`signin:address:${req.ip ?? req.socket.remoteAddress}`, SIGN_IN_WINDOW_MS);
  }
}
