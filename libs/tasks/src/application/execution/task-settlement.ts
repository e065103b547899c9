import { Injectable } from '@nestjs/common';
import { Money } from '@gensvc/shared';
import { WalletCommands } from '@gensvc/wallet/contracts';
import { isTerminal } from '../../domain/task';
import { TaskStore } from '../task-store';

/**
 * Settles a finished task with its wallet: a succeeded task captures its quote's estimated
 * amount and releases the rest (`settled`); a failed or canceled task releases everything
 * (`released`). Both steps are idempotent, so a repeat (or a crash between them) settles once.
 */
@Injectable()
export class TaskSettlement {
  constructor(
    private readonly tasks: TaskStore,
    private readonly wallet: WalletCommands,
  ) {}

  async settle(taskId: string): Promise<{ position?: bigint }> {
    const state = await this.tasks.load(taskId);
    if (state.kind !== 'task') return {};
    const t = state.task;
    if (!isTerminal(t.status) || t.settlement_status !== 'reserved') return {};
    const succeeded = t.status === 'succeeded';
    const outcome = succeeded
      ? await this.wallet.capture({ accountId: t.account_id, reservationId: t.task_id, amount: Money.parse(t.estimated_amount) })
      : await this.wallet.release({ accountId: t.account_id, reservationId: t.task_id });
    const settled = await this.tasks.handle(taskId, {
      type: 'SettleTask',
      settlementStatus: succeeded ? 'settled' : 'released',
      chargedAmount: Money.format(outcome.charged),
      releasedAmount: Money.format(outcome.released),
      now: this.tasks.now(),
    });
    const positions = [outcome.position, settled.position].filter((p): p is bigint => p !== undefined);
    return { position: positions.length ? positions.reduce((a, b) => (a > b ? a : b)) : undefined };
  }
}
