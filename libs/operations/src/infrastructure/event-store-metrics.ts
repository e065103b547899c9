import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { EventStore } from '@gensvc/event-sourcing';
import { Metrics } from './metrics';

const INSTRUMENTED = Symbol('gensvc.metrics.instrumented');

/**
 * Times every append of the process's event store (whichever adapter the config chose)
 * by wrapping its `appendToStream` once at start; behaviour is otherwise unchanged.
 */
@Injectable()
export class EventStoreMetrics implements OnModuleInit {
  constructor(
    @Inject(EventStore) private readonly events: EventStore,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    const store = this.events as EventStore & { [INSTRUMENTED]?: boolean };
    if (store[INSTRUMENTED]) return;
    store[INSTRUMENTED] = true;
    const append = store.appendToStream.bind(store);
    const metrics = this.metrics;
    store.appendToStream = async function timedAppend(...args: Parameters<EventStore['appendToStream']>) {
      const started = performance.now();
      let ok = false;
      try {
        const result = await append(...args);
        ok = true;
        return result;
      } finally {
        metrics.observeAppend((performance.now() - started) / 1000, ok);
      }
    } as EventStore['appendToStream'];
  }
}
