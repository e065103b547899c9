import type { StandInOutput } from './provider-stand-in';

/** How a synchronous call ends: its outputs (default: the endpoint's usual one), or the provider's error. */
export type SyncOutcome = { readonly ok: true; readonly outputs?: readonly StandInOutput[] } | { readonly ok: false; readonly message?: string };

/**
 * The test's hold on the calls a provider answers synchronously (the result in the answer:
 * OpenAI's endpoints, Ark's image generations, DashScope's speech). A call is answered:
 * - with the next outcome scripted by `script` (`succeedNext` / `failNext` on the stand-ins), if any;
 * - else, while `hold` is false (the default), at once with the endpoint's usual output;
 * - else it waits, its job running, until the test settles it (`succeed(id)` / `fail(id)`).
 */
export class SynchronousCalls {
  /** Hold unscripted calls until the test settles them. */
  hold = false;
  private readonly scripted: SyncOutcome[] = [];
  private readonly waiting = new Map<string, (outcome: SyncOutcome) => void>();

  script(outcome: SyncOutcome): void {
    this.scripted.push(outcome);
  }

  /** How the call `id` ends: scripted, at once, or when the test settles it. */
  outcome(id: string): Promise<SyncOutcome> {
    const next = this.scripted.shift();
    if (next) return Promise.resolve(next);
    if (!this.hold) return Promise.resolve({ ok: true });
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  /** Whether the call `id` waits for the test. */
  held(id: string): boolean {
    return this.waiting.has(id);
  }

  /** Answers a held call; throws when `id` is not one. */
  settle(id: string, outcome: SyncOutcome): void {
    const resolve = this.waiting.get(id);
    if (!resolve) throw new Error(`no synchronous call ${id} is held (set hold = true before the call)`);
    this.waiting.delete(id);
    resolve(outcome);
  }
}
