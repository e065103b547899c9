import { EventStore, SubscriptionEngine } from '@gensvc/event-sourcing';
import { DeliveryRunner } from '@gensvc/notifications';
import type { TestApp } from './test-app';

/**
 * Resolves once the app has dealt with every stored event as far as webhooks go: the durable
 * checkpoint of every reactor (the one that turns events into deliveries, the one that hands
 * them to the runner, ...) passed the newest event, the delivery runner has no attempt running
 * or due, the projections applied everything, and nothing was appended meanwhile. After that
 * no delivery is queued or sent unless something new is stored, so tests check then what an
 * endpoint did not get.
 */
export async function waitForDeliveriesSettled(t: TestApp, timeoutMs = 20_000): Promise<void> {
  const events = t.app.get(EventStore);
  const engine = t.app.get(SubscriptionEngine);
  const runner = t.app.get(DeliveryRunner, { strict: false });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const head = await events.headPosition();
    const behind = [...(await engine.reactorPositions())].filter(([, position]) => position < head).map(([name]) => name);
    if (!behind.length && runner.busy === 0 && engine.projectedPosition() >= head && (await events.headPosition()) === head) return;
    if (Date.now() > deadline) {
      throw new Error(`webhook deliveries did not settle in ${timeoutMs} ms: reactors behind ${head}: ${behind.join(', ') || 'none'}; delivery runner busy: ${runner.busy}; projected: ${engine.projectedPosition()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
