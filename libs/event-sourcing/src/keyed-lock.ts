/**
 * The kernel's one keyed lock: runs async work for one key at a time inside this process
 * (commands on one stream, the uploads of one account), in arrival order; a failure of one
 * run does not stop the next. Other processes are kept out by the event store's expected
 * revision, not by this.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Resolves when the work running or waiting now has finished (failures included), or after `timeoutMs`. */
  async idle(timeoutMs = Infinity): Promise<void> {
    const all = Promise.allSettled([...this.tails.values()]);
    if (timeoutMs === Infinity) return void (await all);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** Keys with work running or waiting (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }

  /** Whether work of `key` is running or waiting. */
  has(key: string): boolean {
    return this.tails.has(key);
  }
}
