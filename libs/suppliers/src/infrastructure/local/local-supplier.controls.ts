import { Injectable } from '@nestjs/common';
import { AppConfig } from '@gensvc/config';
import type { LocalBehavior } from '../../domain/supplier-job';

/**
 * Test switches of the built-in local supplier (e2e tests reach it with
 * `app.get(LocalSupplierControls)`). A switch is taken by the next job(s) *queued* for the
 * local supplier and recorded on the job's stream, so it also holds after a restart.
 * Nothing else turns them on: no model input, no HTTP route.
 */
@Injectable()
export class LocalSupplierControls {
  /** Time a local job spends queued, and again running (LOCAL_SUPPLIER_DELAY_MS). */
  delayMs: number;
  private readonly pending: LocalBehavior[] = [];
  private standing: LocalBehavior = {};

  constructor(config: AppConfig) {
    this.delayMs = config.localSupplierDelayMs;
  }

  /** The next `count` jobs fail (SUPPLIER_ERROR) when their work would finish. */
  failNext(count = 1): this {
    return this.arm(count, { outcome: 'fail' });
  }

  /** The next `count` jobs start running and never finish (until their deadline). */
  hangNext(count = 1): this {
    return this.arm(count, { outcome: 'hang' });
  }

  /** The next `count` jobs refuse a cancellation asked while they run. */
  refuseCancelNext(count = 1): this {
    return this.arm(count, { cancel: 'refuse' });
  }

  /** The next `count` jobs never answer a cancellation asked while they run (`unconfirmed`). */
  leaveCancelUnconfirmedNext(count = 1): this {
    return this.arm(count, { cancel: 'unconfirmed' });
  }

  /** Applies to every following job until `reset()`. */
  setStanding(behavior: LocalBehavior): this {
    this.standing = { ...behavior };
    return this;
  }

  setDelayMs(ms: number): this {
    this.delayMs = ms;
    return this;
  }

  /** Clears every switch (the delay stays). */
  reset(): this {
    this.pending.length = 0;
    this.standing = {};
    return this;
  }

  /** Used when a job is queued: the switches it takes (empty normally). */
  take(): LocalBehavior {
    const next = this.pending.shift() ?? {};
    return { ...this.standing, ...next };
  }

  private arm(count: number, behavior: LocalBehavior): this {
    for (let i = 0; i < count; i++) {
      if (i < this.pending.length) this.pending[i] = { ...this.pending[i], ...behavior };
      else this.pending.push({ ...behavior });
    }
    return this;
  }
}
