import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ApiClient, ApiError, NetworkError } from './client';
import { downloadAsset, type Downloaded } from './downloads';
import { statusLine } from './progress';
import { uploadFile, withoutCredentials } from './uploads';

const HELP = `gensvc: command-line client of the gensvc API (for people and agents)

Usage: gensvc [--base-url URL] [--api-key KEY] <command> [arguments] [options]

  --base-url URL      service address (GENSVC_BASE_URL, default http://127.0.0.1:3000)
  --api-key KEY       account API key (GENSVC_API_KEY)
  --pretty            indented JSON;  --quiet  no progress on stderr

Commands (each prints one JSON object on stdout; progress goes to stderr):
  models [ID] [--capability C] [--modality M]    the catalogue (no key needed)
  capabilities | prices                          the catalogue (no key needed)
  quote --model M --capability C [input]         price a task (reserves nothing)
  run --model M --capability C [input] [--title T] [--out DIR] [--no-download]
      [--idempotency-key K] [--timeout S]        quote, create, wait (status on stderr),
                                                 download the outputs into --out (default .)
  upload FILE [--name N] [--mime M]              size, real MIME and SHA-256 first, then
                                                 prepare, PUT (progress bar), complete; a re-run
                                                 resumes the same upload (key derived from the file)
  assets get ID | assets download ID [--out PATH] [--overwrite] | assets delete ID
  tasks list [filters] | tasks get ID | tasks cancel ID
  wallet | billing [filters]
  voices list | voices get ID | voices delete ID
  webhooks create --url URL [--event TYPE]... [--description D]   (secret shown once;
                                                 no --event: every event type)
  webhooks list | webhooks get ID | webhooks delete ID | webhooks rotate ID
  webhooks deliveries ID [--page P] [--limit L] | webhooks retry ID DELIVERY_ID

Input of quote and run:
  --input JSON|@FILE   the input object;  --param NAME=VALUE (repeatable; VALUE is JSON or text)
  --options JSON|@FILE the options object
  --asset ID           add an asset id to input.asset_ids (repeatable)
  --file PATH          upload a file first and add its asset id (repeatable)

List filters: --page --limit --q --status --modality --settlement-status --connection-id
  --created-from --created-before --min-amount --max-amount

Exit status: 0 done; 1 error (the error object is printed); 2 usage; 3 the task failed or
was canceled (run).`;

class UsageError extends Error {}

const OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  pretty: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  model: { type: 'string' },
  capability: { type: 'string' },
  modality: { type: 'string' },
  input: { type: 'string' },
  options: { type: 'string' },
  param: { type: 'string', multiple: true },
  asset: { type: 'string', multiple: true },
  file: { type: 'string', multiple: true },
  title: { type: 'string' },
  'idempotency-key': { type: 'string' },
  out: { type: 'string' },
  'no-download': { type: 'boolean' },
  overwrite: { type: 'boolean' },
  timeout: { type: 'string' },
  'poll-ms': { type: 'string' },
  name: { type: 'string' },
  mime: { type: 'string' },
  page: { type: 'string' },
  limit: { type: 'string' },
  q: { type: 'string' },
  status: { type: 'string' },
  'settlement-status': { type: 'string' },
  'connection-id': { type: 'string' },
  'created-from': { type: 'string' },
  'created-before': { type: 'string' },
  'min-amount': { type: 'string' },
  'max-amount': { type: 'string' },
  url: { type: 'string' },
  event: { type: 'string', multiple: true },
  description: { type: 'string' },
} as const;

type Flags = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

interface Task {
  id: string;
  status: string;
  output: { asset_ids?: string[]; text?: string; voice_id?: string } | null;
  cancellation?: { status: string };
  [k: string]: unknown;
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A JSON value from `--input '{...}'` or `--input @file.json`. */
async function jsonArg(flag: string, value: string | undefined): Promise<Record<string, unknown> | undefined> {
  if (value === undefined) return undefined;
  const text = value.startsWith('@') ? await readFile(value.slice(1), 'utf8') : value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--${flag}: not valid JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--${flag}: must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** `NAME=VALUE`, VALUE parsed as JSON when it is JSON, else kept as text. */
function paramArg(raw: string): [string, unknown] {
  const i = raw.indexOf('=');
  if (i <= 0) throw new UsageError(`--param ${raw}: expected NAME=VALUE`);
  const value = raw.slice(i + 1);
  try {
    return [raw.slice(0, i), JSON.parse(value)];
  } catch {
    return [raw.slice(0, i), value];
  }
}

function required(flags: Flags, name: 'model' | 'capability'): string {
  const v = flags[name];
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

function positional(args: string[], index: number, what: string): string {
  const v = args[index];
  if (!v) throw new UsageError(`${what} is required`);
  return v;
}

function listQuery(flags: Flags): Record<string, string | undefined> {
  return {
    page: flags.page,
    limit: flags.limit,
    q: flags.q,
    status: flags.status,
    modality: flags.modality,
    settlement_status: flags['settlement-status'],
    connection_id: flags['connection-id'],
    created_from: flags['created-from'],
    created_before: flags['created-before'],
    min_amount: flags['min-amount'],
    max_amount: flags['max-amount'],
  };
}

class Cli {
  constructor(
    private readonly api: ApiClient,
    private readonly flags: Flags,
    private readonly quiet: boolean,
  ) {}

  log = (line: string): void => {
    if (!this.quiet) process.stderr.write(`${line}\n`);
  };

  async run(command: string, args: string[]): Promise<unknown> {
    const f = this.flags;
    const api = this.api;
    const id = (i: number, what: string) => encodeURIComponent(positional(args, i, what));
    switch (command) {
      case 'models':
        if (args[0]) return api.get(`/v1/models/${id(0, 'model id')}`, { anonymous: true });
        return api.get('/v1/models', { anonymous: true, query: { capability: f.capability, modality: f.modality } });
      case 'capabilities':
        return api.get('/v1/capabilities', { anonymous: true });
      case 'prices':
        return api.get('/v1/prices', { anonymous: true });
      case 'quote':
        return api.post('/v1/quotes', await this.quoteBody(), { retries: 2 });
      case 'run':
        return this.runTask();
      case 'upload': {
        const path = positional(args, 0, 'FILE');
        if (args.length > 1) throw new UsageError('upload takes one FILE');
        return withoutCredentials(await uploadFile(api, path, { name: f.name, mime: f.mime, quiet: this.quiet, log: this.log }));
      }
      case 'assets':
        switch (args[0]) {
          case 'get':
            return api.get(`/v1/assets/${id(1, 'asset id')}`);
          case 'download':
            return downloadAsset(api, positional(args, 1, 'asset id'), f.out ?? '.', { quiet: this.quiet, overwrite: f.overwrite });
          case 'delete':
            return api.delete(`/v1/assets/${id(1, 'asset id')}`);
          default:
            throw new UsageError('assets get ID | assets download ID [--out PATH] | assets delete ID');
        }
      case 'tasks':
        switch (args[0]) {
          case 'list':
            return api.get('/v1/tasks', { query: listQuery(f) });
          case 'get':
            return api.get(`/v1/tasks/${id(1, 'task id')}`);
          case 'cancel':
            return api.post(`/v1/tasks/${id(1, 'task id')}/cancel`, {}, { retries: 2 });
          default:
            throw new UsageError('tasks list | tasks get ID | tasks cancel ID');
        }
      case 'wallet':
        return api.get('/v1/wallet');
      case 'billing':
        return api.get('/v1/billing', { query: listQuery(f) });
      case 'voices':
        switch (args[0]) {
          case 'list':
            return api.get('/v1/voices', { query: { page: f.page, limit: f.limit } });
          case 'get':
            return api.get(`/v1/voices/${id(1, 'voice id')}`);
          case 'delete':
            return api.delete(`/v1/voices/${id(1, 'voice id')}`);
          default:
            throw new UsageError('voices list | voices get ID | voices delete ID');
        }
      case 'webhooks':
        return this.webhooks(args);
      default:
        throw new UsageError(`unknown command ${command}; see gensvc --help`);
    }
  }

  /** Webhook endpoints and their deliveries (docs/api.md, "Webhooks"). */
  private webhooks(args: string[]): Promise<unknown> {
    const f = this.flags;
    const api = this.api;
    const id = (i: number, what: string) => encodeURIComponent(positional(args, i, what));
    const usage = 'webhooks create --url URL [--event TYPE]... [--description D] | list | get ID | delete ID | rotate ID | deliveries ID | retry ID DELIVERY_ID';
    switch (args[0]) {
      case 'create': {
        if (!f.url) throw new UsageError('--url is required');
        const body = { url: f.url, events: f.event?.length ? f.event : ['*'], ...(f.description !== undefined ? { description: f.description } : {}) };
        return api.post('/v1/webhook-endpoints', body);
      }
      case 'list':
        return api.get('/v1/webhook-endpoints', { query: { page: f.page, limit: f.limit } });
      case 'get':
        return api.get(`/v1/webhook-endpoints/${id(1, 'endpoint id')}`);
      case 'delete':
        return api.delete(`/v1/webhook-endpoints/${id(1, 'endpoint id')}`);
      case 'rotate':
        return api.post(`/v1/webhook-endpoints/${id(1, 'endpoint id')}/rotate-secret`, {});
      case 'deliveries':
        return api.get(`/v1/webhook-endpoints/${id(1, 'endpoint id')}/deliveries`, { query: { page: f.page, limit: f.limit } });
      case 'retry':
        return api.post(`/v1/webhook-endpoints/${id(1, 'endpoint id')}/deliveries/${id(2, 'delivery id')}/retry`, {}, { retries: 2 });
      default:
        throw new UsageError(usage);
    }
  }

  /** The quote body from --model, --capability, --input, --param, --asset, --file, --options. */
  private async quoteBody(): Promise<Record<string, unknown>> {
    const f = this.flags;
    const input = (await jsonArg('input', f.input)) ?? {};
    for (const raw of f.param ?? []) {
      const [k, v] = paramArg(raw);
      input[k] = v;
    }
    const assetIds = [...(Array.isArray(input.asset_ids) ? (input.asset_ids as string[]) : []), ...(f.asset ?? [])];
    for (const path of f.file ?? []) {
      const up = await uploadFile(this.api, path, { quiet: this.quiet, log: this.log });
      if (!up.asset_id) throw new Error(`upload of ${path} gave no asset`);
      this.log(`${path} → ${up.asset_id}`);
      assetIds.push(up.asset_id);
    }
    if (assetIds.length) input.asset_ids = assetIds;
    const options = await jsonArg('options', f.options);
    return { model: required(f, 'model'), capability: required(f, 'capability'), input, ...(options ? { options } : {}) };
  }

  /** quote → create (one idempotency key for every retry) → wait → download the outputs. */
  private async runTask(): Promise<{ task: Task; files: Downloaded[] }> {
    const f = this.flags;
    const timeoutMs = (f.timeout ? Number(f.timeout) : 600) * 1000;
    const pollMs = f['poll-ms'] ? Number(f['poll-ms']) : 500;
    if (!(timeoutMs > 0) || !(pollMs >= 50)) throw new UsageError('--timeout must be positive seconds and --poll-ms at least 50');
    const quote = await this.api.post<{ quote_id: string; estimated_amount: string; max_amount: string; currency: string }>('/v1/quotes', await this.quoteBody(), { retries: 2 });
    this.log(`quote ${quote.quote_id}: ${quote.estimated_amount} ${quote.currency} (at most ${quote.max_amount})`);
    const key = f['idempotency-key'] ?? `gensvc-cli-${randomUUID()}`;
    const created = await this.api.post<Task>('/v1/tasks', { quote_id: quote.quote_id, ...(f.title !== undefined ? { title: f.title } : {}) }, {
      headers: { 'Idempotency-Key': key },
      retries: 3, // the same key and body: a retry returns the same task
    });
    this.log(`task ${created.id} created (Idempotency-Key ${key})`);
    const line = statusLine(this.quiet);
    const started = Date.now();
    let task = created;
    try {
      while (!TERMINAL.has(task.status)) {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        const cancel = task.cancellation && task.cancellation.status !== 'none' ? `, cancellation ${task.cancellation.status}` : '';
        line.show(`${task.id}: ${task.status}${cancel} · ${seconds} s`);
        if (Date.now() - started > timeoutMs) throw new ApiError(0, 'TIMEOUT', `task ${task.id} is still ${task.status} after ${timeoutMs / 1000} s`, undefined, undefined);
        await sleep(pollMs);
        task = await this.api.get<Task>(`/v1/tasks/${encodeURIComponent(task.id)}`);
      }
      line.show(`${task.id}: ${task.status} · ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      line.stop();
    }
    const files: Downloaded[] = [];
    if (task.status === 'succeeded' && !f['no-download']) {
      for (const assetId of task.output?.asset_ids ?? []) {
        const d = await downloadAsset(this.api, assetId, f.out ?? '.', { quiet: this.quiet });
        this.log(`${assetId} → ${d.path}`);
        files.push(d);
      }
    }
    if (task.status !== 'succeeded') process.exitCode = 3;
    return { task, files };
  }
}

async function main(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    return fail(2, { code: 'USAGE', message: (err as Error).message });
  }
  const { values: flags, positionals } = parsed;
  if (flags.help || positionals.length === 0) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const baseUrl = flags['base-url'] ?? process.env.GENSVC_BASE_URL ?? 'http://127.0.0.1:3000';
  try {
    new URL(baseUrl);
  } catch {
    return fail(2, { code: 'USAGE', message: `--base-url: not a URL: ${baseUrl}` });
  }
  const api = new ApiClient({ baseUrl, apiKey: flags['api-key'] ?? process.env.GENSVC_API_KEY, userAgent: 'gensvc-cli/0.1.0' });
  const cli = new Cli(api, flags, flags.quiet === true);
  try {
    const result = await cli.run(positionals[0], positionals.slice(1));
    process.stdout.write(`${JSON.stringify(result, null, flags.pretty ? 2 : undefined)}\n`);
  } catch (err) {
    if (err instanceof UsageError) return fail(2, { code: 'USAGE', message: err.message });
    if (err instanceof ApiError) return fail(1, { code: err.code, message: err.message, ...(err.requestId ? { request_id: err.requestId } : {}) });
    if (err instanceof NetworkError) return fail(1, { code: 'NETWORK_ERROR', message: err.message });
    return fail(1, { code: 'CLIENT_ERROR', message: (err as Error).message });
  }
}

function fail(code: number, error: { code: string; message: string; request_id?: string }): void {
  process.stdout.write(`${JSON.stringify({ error })}\n`);
  process.exitCode = code;
}

main(process.argv.slice(2)).catch((err) => {
  process.stdout.write(`${JSON.stringify({ error: { code: 'CLIENT_ERROR', message: String((err as Error)?.message ?? err) } })}\n`);
  process.exitCode = 1;
});
