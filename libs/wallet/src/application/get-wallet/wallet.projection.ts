import { Injectable } from '@nestjs/common';
import { AsProjection, ProjectionProvider, documentProjection } from '@gensvc/event-sourcing';
import { Money, streamCategory } from '@gensvc/kernel';
import { WALLET_EVENT_TYPES, WALLET_STREAM, type WalletEvent } from '../../domain/wallet';

export const WALLETS = 'wallets';

/** One document per account: amounts in micro-units as decimal strings (exact). */
export interface WalletDoc extends Record<string, unknown> {
  account_id: string;
  available: string;
  reserved: string;
  updated_at: string;
}

const add = (a: string, b: bigint): string => (BigInt(a) + b).toString();

export function evolveWalletDoc(doc: WalletDoc | null, event: WalletEvent): WalletDoc {
  const d = doc ?? { account_id: event.data.account_id, available: '0', reserved: '0', updated_at: event.data.at };
  const at = event.data.at;
  switch (event.type) {
    case 'FundsCredited':
      return { ...d, available: add(d.available, Money.parse(event.data.amount)), updated_at: at };
    case 'FundsReserved': {
      const amount = Money.parse(event.data.amount);
      return { ...d, available: add(d.available, -amount), reserved: add(d.reserved, amount), updated_at: at };
    }
    case 'FundsCaptured': {
      const charged = Money.parse(event.data.amount);
      const rest = Money.parse(event.data.released_amount);
      return { ...d, available: add(d.available, rest), reserved: add(d.reserved, -(charged + rest)), updated_at: at };
    }
    case 'FundsReleased': {
      const amount = Money.parse(event.data.amount);
      return { ...d, available: add(d.available, amount), reserved: add(d.reserved, -amount), updated_at: at };
    }
    case 'FundsReservationVoided':
      return d;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** GET /v1/wallet reads this: balance, reserved and available per account. */
@AsProjection()
@Injectable()
export class WalletProjection extends ProjectionProvider {
  protected readonly inner = documentProjection<WalletDoc, WalletEvent>({
    name: 'wallet.wallets',
    collection: WALLETS,
    handles: WALLET_EVENT_TYPES,
    documentId: (e) => (streamCategory(e.streamName) === WALLET_STREAM ? e.data.account_id : null),
    evolve: (doc, e) => evolveWalletDoc(doc, e),
  });
}
