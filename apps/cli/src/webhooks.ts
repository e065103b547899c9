import type { Command } from 'commander';
import type { Gensvc, WebhookEndpoint, WebhookEndpointCreateRequest } from '@gensvc/sdk';

/** main.ts's action wrapper: runs `fn` with the client and prints its result (`kind` picks the table columns). */
export type Act = (kind: string | undefined, fn: (client: Gensvc, g: unknown, ...args: never[]) => Promise<unknown>) => (...args: unknown[]) => Promise<void>;

const EVENT_TYPES = 'task.created, task.running, task.succeeded, task.failed, task.canceled, upload.completed, asset.deleted, voice.deleted';

/** `--events a,b --events c` → `['a', 'b', 'c']`. */
const eventList = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

const pageOptions = (cmd: Command) => cmd.option('--page <n>', 'page number (from 1)').option('--limit <n>', 'items per page (1 to 100)');
const pageQuery = (o: { page?: string; limit?: string }) => ({ page: o.page as never, limit: o.limit as never });

/** The secret is in this one answer only: say so on stderr (stdout keeps exactly the result). */
function secretShown(endpoint: WebhookEndpoint, g: unknown, note: string): WebhookEndpoint {
  if (!(g as { quiet?: boolean }).quiet) process.stderr.write(`The signing secret of ${endpoint.id} is shown only now: store it. ${note}\n`);
  return endpoint;
}

/**
 * `gensvc webhooks ...`: the account's webhook endpoints (result notifications) and their
 * deliveries, on the SDK's `webhookEndpoints`.
 */
export function registerWebhooks(root: Command, act: Act): void {
  const webhooks = root
    .command('webhooks')
    .description('webhook endpoints (signed result notifications) and their deliveries')
    .addHelpText(
      'after',
      `
Messages are signed the Standard Webhooks way (webhook-id, webhook-timestamp,
webhook-signature); verify them with a Standard Webhooks library and the endpoint's secret.`,
    );

  webhooks
    .command('create')
    .description('register an endpoint; prints it with its signing secret (shown only here)')
    .argument('<url>', 'https:// address that receives the messages')
    .requiredOption('--events <types>', `event types, comma-separated or repeated, or '*' for all: ${EVENT_TYPES}`, eventList)
    .option('--description <text>', 'a note for yourself')
    .action(
      act('webhooks', async (c, g, url: string, o: { events: string[]; description?: string }) => {
        const body: WebhookEndpointCreateRequest = { url, events: o.events as WebhookEndpointCreateRequest['events'], ...(o.description !== undefined ? { description: o.description } : {}) };
        return secretShown(await c.webhookEndpoints.create(body), g, 'Verify messages with it.');
      }),
    );

  pageOptions(webhooks.command('list').description('the endpoints, newest first')).action(act('webhooks', (c, _g, o: { page?: string; limit?: string }) => c.webhookEndpoints.list(pageQuery(o))));

  webhooks.command('get').description('one endpoint (without its secret)').argument('<id>', 'endpoint id (whe_...)').action(act('webhooks', (c, _g, id: string) => c.webhookEndpoints.get(id)));

  webhooks.command('delete').description('delete an endpoint; nothing is sent to it afterwards').argument('<id>', 'endpoint id').action(act(undefined, (c, _g, id: string) => c.webhookEndpoints.delete(id)));

  webhooks
    .command('rotate')
    .description('a new signing secret (shown only here); the previous one keeps signing beside it for 24 hours')
    .argument('<id>', 'endpoint id')
    .action(act('webhooks', async (c, g, id: string) => secretShown(await c.webhookEndpoints.rotateSecret(id), g, 'The previous secret keeps signing for 24 hours.')));

  pageOptions(
    webhooks
      .command('deliveries')
      .description('the deliveries of an endpoint, newest first, with their attempts (--json for every attempt)')
      .argument('<id>', 'endpoint id'),
  ).action(act('deliveries', (c, _g, id: string, o: { page?: string; limit?: string }) => c.webhookEndpoints.deliveries(id, pageQuery(o))));

  webhooks
    .command('retry')
    .description('send a delivery again now: the same message, the same webhook-id')
    .argument('<id>', 'endpoint id')
    .argument('<delivery_id>', 'delivery id (whd_...)')
    .action(act(undefined, (c, _g, id: string, deliveryId: string) => c.webhookEndpoints.retryDelivery(id, deliveryId)));
}
