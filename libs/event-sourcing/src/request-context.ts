import { AsyncLocalStorage } from 'node:async_hooks';

/** What travels with one request (or one subscription delivery) through every layer. */
export interface RequestContext {
  requestId: string;
  /** Who acts: `account:acc_..`, `admin`, `system:<reactor>`. */
  actor?: string;
  /** Event id that caused this work (set by reactors). */
  causationId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const RequestContexts = {
  run<T>(ctx: RequestContext, fn: () => T): T {
    return storage.run(ctx, fn);
  },
  current(): RequestContext | undefined {
    return storage.getStore();
  },
  setActor(actor: string): void {
    const ctx = storage.getStore();
    if (ctx) ctx.actor = actor;
  },
};
