import { randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { Command, CommanderError, Option } from 'commander';
import { ApiError, Gensvc, GensvcError, SDK_VERSION, TaskCanceledError, TaskFailedError, withoutUploadToken, type Task, type Upload } from '@gensvc/sdk';
import { uploadFile } from '@gensvc/sdk/node';
import { downloadAsset, type Downloaded } from './downloads.js';
import { escapeControl, outputMode, print, printError, type OutputMode } from './output.js';
import { byteProgress, statusLine } from './progress.js';
import { registerWebhooks } from './webhooks.js';

/** Exit status: 0 done; 1 error; 2 usage; 3 `run`'s task failed or was canceled. */
const EXIT = { error: 1, usage: 2, taskFailed: 3 } as const;

class UsageError extends Error {}

interface Globals {
  baseUrl?: string;
  apiKey?: string;
  json?: boolean;
  pretty?: boolean;
  quiet?: boolean;
}

const mode: OutputMode = outputMode(process.argv.slice(2));

function globals(cmd: Command): Globals {
  return cmd.optsWithGlobals<Globals>();
}

function clientOf(g: Globals): Gensvc {
  const baseUrl = g.baseUrl ?? process.env.GENSVC_BASE_URL ?? 'http://127.0.0.1:3000';
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url: not a URL: ${baseUrl}`);
  }
  const apiKey = g.apiKey ?? process.env.GENSVC_API_KEY; // none: the catalogue works, other commands say which variable to set
  return new Gensvc({ baseUrl, apiKey: apiKey || undefined, headers: { 'User-Agent': `gensvc-cli/${SDK_VERSION}` } });
}

const log = (g: Globals) => (line: string) => {
  if (!g.quiet) process.stderr.write(`${escapeControl(line)}\n`);
};

/** A JSON object from `'{...}'` or `@file.json`. */
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

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Uploads one file with a progress bar on stderr; the result without its upload token. */
async function uploadWithBar(client: Gensvc, path: string, g: Globals, o: { name?: string; mime?: string } = {}): Promise<Omit<Upload, 'upload'>> {
  const say = log(g);
  let bar: ReturnType<typeof byteProgress> | undefined;
  let sent = 0;
  try {
    const done = await uploadFile(client, path, {
      name: o.name,
      mime: o.mime,
      onInspected: (f) => say(`${f.name}: ${f.size} bytes, ${f.mime}, sha256 ${f.checksum}`),
      onEvent: say,
      onProgress: ({ loaded, total }) => {
        bar ??= byteProgress('upload', total, g.quiet === true);
        if (loaded < sent) bar.reset();
        else bar.add(loaded - sent);
        sent = loaded;
      },
    });
    return withoutUploadToken(done);
  } finally {
    bar?.stop();
  }
}

async function quoteBody(client: Gensvc, o: Record<string, unknown>, g: Globals): Promise<{ model: string; capability: string; input: Record<string, unknown>; options?: Record<string, unknown> }> {
  const input = (await jsonArg('input', o.input as string | undefined)) ?? {};
  for (const raw of (o.param as string[] | undefined) ?? []) {
    const [k, v] = paramArg(raw);
    input[k] = v;
  }
  const model = o.model as string;
  let capability = o.capability as string | undefined;
  if (capability === undefined) {
    // The model's capability when it has exactly one (as the SDKs do).
    const m = await client.models.get(model);
    if (m.capabilities.length !== 1) throw new UsageError(`--capability: model ${model} has ${m.capabilities.join(', ')}; choose one`);
    capability = m.capabilities[0];
  }
  const assetIds = [...(Array.isArray(input.asset_ids) ? (input.asset_ids as string[]) : []), ...((o.asset as string[] | undefined) ?? [])];
  for (const path of (o.file as string[] | undefined) ?? []) {
    const up = await uploadWithBar(client, path, g);
    if (!up.asset_id) throw new Error(`the upload of ${path} gave no asset`);
    log(g)(`${path} → ${up.asset_id}`);
    assetIds.push(up.asset_id);
  }
  if (assetIds.length) input.asset_ids = assetIds;
  const options = await jsonArg('options', o.options as string | undefined);
  return { model, capability, input, ...(options ? { options } : {}) };
}

/** An output that could not be downloaded after the task succeeded (the task is paid: `run` still exits 0). */
interface DownloadError {
  asset_id: string;
  error: { code: string; message: string };
}

/**
 * `run`: uploads the files, then the SDK's run (quote, the amount check, creation under one
 * Idempotency-Key, the task's event stream until it is finished) and downloads the outputs
 * into `--out` (created when missing). Running it again with the same --idempotency-key
 * follows the task that key created. After a success an output that cannot be downloaded is
 * reported (`download_errors`, and on stderr how to fetch it), never an error exit: the task
 * is paid.
 */
async function runTask(client: Gensvc, o: Record<string, unknown>, g: Globals): Promise<{ task: Task; files: Downloaded[]; download_errors?: DownloadError[] }> {
  const say = log(g);
  const timeoutMs = Number(o.timeout ?? 600) * 1000;
  if (!(timeoutMs > 0)) throw new UsageError('--timeout must be positive seconds');
  const maxAmount = o.maxAmount as string | undefined;
  if (maxAmount !== undefined && !/^\d{1,12}(\.\d{1,6})?$/.test(maxAmount)) throw new UsageError(`--max-amount: not a CNY amount: ${maxAmount}`);
  const body = await quoteBody(client, o, g);
  const key = (o.idempotencyKey as string | undefined) ?? `gensvc-cli-${randomUUID()}`;
  const line = statusLine(g.quiet === true);
  const started = Date.now();
  const show = (t: Task) => {
    const cancel = t.cancellation && t.cancellation.status !== 'none' ? `, cancellation ${t.cancellation.status}` : '';
    line.show(`${t.id}: ${t.status}${cancel} · ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  let task: Task;
  try {
    task = await client.run(body.model, body.input, {
      capability: body.capability,
      options: body.options,
      ...(o.title !== undefined ? { title: o.title as string } : {}),
      maxAmount,
      idempotencyKey: key,
      timeoutMs,
      onQuote: (q) => say(`quote ${q.quote_id}: ${q.estimated_amount} ${q.currency} (at most ${q.max_amount})`),
      onCreated: (t, resumed) => {
        say(resumed ? `task ${t.id}: created earlier under Idempotency-Key ${key}; following it` : `task ${t.id} created (Idempotency-Key ${key})`);
        show(t);
      },
      onUpdate: show,
    });
  } catch (err) {
    if (!(err instanceof TaskFailedError || err instanceof TaskCanceledError)) throw err;
    task = err.task;
    process.exitCode = EXIT.taskFailed;
  } finally {
    line.stop();
  }
  const files: Downloaded[] = [];
  const failed: DownloadError[] = [];
  if (task.status === 'succeeded' && o.download !== false) {
    const out = (o.out as string | undefined) ?? '.';
    for (const assetId of task.output?.asset_ids ?? []) {
      try {
        await mkdir(out, { recursive: true });
        const d = await downloadAsset(client, assetId, out, { quiet: g.quiet === true });
        say(`${assetId} → ${d.path}`);
        files.push(d);
      } catch (err) {
        const error = err instanceof ApiError ? err.toJSON().error : { code: (err as { code?: string }).code ?? 'CLIENT_ERROR', message: err instanceof Error ? err.message : String(err) };
        failed.push({ asset_id: assetId, error: { code: error.code, message: error.message } });
        say(`could not download ${assetId} (${error.message}); the task succeeded: gensvc assets download ${assetId} --out ${out}`);
      }
    }
  }
  return { task, files, ...(failed.length ? { download_errors: failed } : {}) };
}

/** Adds the list filters of tasks and billing. */
function listFilters(cmd: Command): Command {
  return cmd
    .option('--page <n>', 'page number (from 1)')
    .option('--limit <n>', 'items per page (1 to 100)')
    .option('--q <text>', 'part of the title or of the id, any case (for bills also the bill id)')
    .addOption(new Option('--status <status>', 'task status').choices(['queued', 'running', 'succeeded', 'failed', 'canceled']))
    .addOption(new Option('--modality <modality>', 'modality').choices(['text', 'image', 'audio', 'video']))
    .addOption(new Option('--settlement-status <status>', 'settlement status').choices(['reserved', 'settled', 'released']))
    .option('--connection-id <id>', 'the API key id or OAuth grant id that created the task')
    .option('--created-from <time>', 'created at or after (RFC 3339)')
    .option('--created-before <time>', 'created before (RFC 3339)')
    .option('--min-amount <cny>', 'net charged CNY, at least')
    .option('--max-amount <cny>', 'net charged CNY, at most');
}

function listQuery(o: Record<string, unknown>): Record<string, string | undefined> {
  const s = (v: unknown) => (v === undefined ? undefined : String(v));
  return {
    page: s(o.page),
    limit: s(o.limit),
    q: s(o.q),
    status: s(o.status),
    modality: s(o.modality),
    settlement_status: s(o.settlementStatus),
    connection_id: s(o.connectionId),
    created_from: s(o.createdFrom),
    created_before: s(o.createdBefore),
    min_amount: s(o.minAmount),
    max_amount: s(o.maxAmount),
  };
}

/** Wires an action that prints its result (the `kind` picks the table columns). */
function act(kind: string | undefined, fn: (client: Gensvc, g: Globals, ...args: never[]) => Promise<unknown>) {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const g = globals(cmd);
    const result = await fn(clientOf(g), g, ...(args.slice(0, -1) as never[]));
    print(result, mode, kind);
  };
}

const INPUT_HELP = `
Input of quote and run:
  --input JSON|@FILE     the input object; --param NAME=VALUE (repeatable; VALUE is JSON or text)
  --options JSON|@FILE   the options object
  --asset ID             add an asset id to input.asset_ids (repeatable)
  --file PATH            upload a file first and add its asset id (repeatable)`;

function quoteOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--model <id>', 'catalogue model id')
    .option('--capability <name>', 'a capability of the model, e.g. image.generate (default: its only one)')
    .option('--input <json>', 'the input object (JSON or @file)')
    .option('--param <name=value>', 'one input field (repeatable)', collect)
    .option('--options <json>', 'the options object (JSON or @file)')
    .option('--asset <id>', 'an asset id for input.asset_ids (repeatable)', collect)
    .option('--file <path>', 'upload this file first and use its asset (repeatable)', collect)
    .addHelpText('after', INPUT_HELP);
}

function program(): Command {
  const root = new Command('gensvc')
    .description('Command-line client of the gensvc API, for people and agents (and `gensvc mcp`, a local MCP server).')
    .version(SDK_VERSION)
    .option('--base-url <url>', 'service address (GENSVC_BASE_URL; default http://127.0.0.1:3000)')
    .option('--api-key <key>', 'account API key or OAuth access token (GENSVC_API_KEY)')
    .option('--json', 'print one JSON object (the default when stdout is not a terminal)')
    .option('--pretty', 'indent JSON')
    .option('-q, --quiet', 'no progress on stderr')
    .showSuggestionAfterError(true)
    .showHelpAfterError(mode.json ? false : '(gensvc help for the commands, gensvc help COMMAND for one)')
    .addHelpText(
      'after',
      `
Output: tables on a terminal; one JSON object with --json or when stdout is not a terminal.
Errors go to stderr (the API's error object in JSON mode). Exit status: 0 done; 1 error;
2 usage; 3 the task of run failed or was canceled.`,
    );

  root
    .command('models')
    .description('the catalogue (no key needed); with an ID, one model with its input_schema')
    .argument('[id]', 'model id')
    .option('--capability <name>', 'only models with this capability')
    .addOption(new Option('--modality <modality>', 'only models of this modality').choices(['text', 'image', 'audio', 'video']))
    .action(act('models', (c, _g, id?: string, o?: Record<string, string>) => (id ? c.models.get(id) : c.models.list({ capability: o?.capability, modality: o?.modality as never }))));

  root.command('capabilities').description('the capabilities of the catalogue (no key needed)').action(act(undefined, (c) => c.models.capabilities()));
  root.command('prices').description('the price list (no key needed)').action(act('prices', (c) => c.models.prices()));

  quoteOptions(root.command('quote').description('price a task (reserves nothing)')).action(
    act(undefined, async (c, g, o: Record<string, unknown>) => c.quotes.create((await quoteBody(c, o, g)) as never)),
  );

  quoteOptions(
    root
      .command('run')
      .description('quote, create, follow the task (status on stderr), then download the outputs')
      .option('--title <text>', 'task title')
      .option('--max-amount <cny>', 'refuse a quote that would reserve more than this (nothing is created)')
      .option('--out <dir>', 'directory the outputs are written to, created when missing (default: the current directory)')
      .option('--no-download', 'do not download the outputs')
      .option('--idempotency-key <key>', 'the Idempotency-Key of the creation (default: a new one); run again with it to follow the task it created')
      .option('--timeout <seconds>', 'how long to wait (default 600)'),
  ).action(act(undefined, (c, g, o: Record<string, unknown>) => runTask(c, o, g)));

  root
    .command('upload')
    .description('upload a file: size, real MIME and SHA-256 first, then prepare, PUT (progress bar), complete; a re-run resumes the same upload')
    .argument('<file>', 'the file')
    .option('--name <name>', 'file name (default: the base name)')
    .option('--mime <type>', 'override the detected type')
    .action(act(undefined, (c, g, file: string, o: { name?: string; mime?: string }) => uploadWithBar(c, file, g, o)));

  const assets = root.command('assets').description('list, read, download and delete assets');
  assets
    .command('list')
    .description('your files, newest first (uploads and task results)')
    .option('--q <text>', 'part of the name, any case')
    .option('--page <n>', 'page number (from 1)')
    .option('--limit <n>', 'items per page (1 to 100)')
    .action(act('assets', (c, _g, o: { q?: string; page?: string; limit?: string }) => c.assets.list({ q: o.q, page: o.page as never, limit: o.limit as never })));
  assets.command('get').description('an asset with fresh signed links').argument('<id>').action(act(undefined, (c, _g, id: string) => c.assets.get(id)));
  assets
    .command('download')
    .description('download an asset (checks size and SHA-256)')
    .argument('<id>')
    .option('--out <path>', 'a directory or a file path (default: the current directory)')
    .option('--overwrite', 'replace an existing file')
    .action(act(undefined, (c, g, id: string, o: { out?: string; overwrite?: boolean }) => downloadAsset(c, id, o.out ?? '.', { quiet: g.quiet === true, overwrite: o.overwrite })));
  assets.command('delete').description('delete an asset').argument('<id>').action(act(undefined, (c, _g, id: string) => c.assets.delete(id)));

  const tasks = root.command('tasks').description('list, read and cancel tasks');
  listFilters(tasks.command('list').description('tasks, newest first')).action(act('tasks', (c, _g, o: Record<string, unknown>) => c.tasks.list(listQuery(o) as never)));
  tasks.command('get').description('one task').argument('<id>').action(act(undefined, (c, _g, id: string) => c.tasks.get(id)));
  tasks.command('cancel').description('ask to cancel a task (repeating is harmless)').argument('<id>').action(act(undefined, (c, _g, id: string) => c.tasks.cancel(id)));

  root.command('wallet').description('the wallet: balance, reserved, available').action(act(undefined, (c) => c.wallet.get()));
  listFilters(root.command('billing').description('bills, newest first')).action(act('billing', (c, _g, o: Record<string, unknown>) => c.billing.list(listQuery(o) as never)));

  const voices = root.command('voices').description('list, read and delete voices');
  voices
    .command('list')
    .description('voices')
    .option('--page <n>', 'page number')
    .option('--limit <n>', 'items per page')
    .action(act('voices', (c, _g, o: { page?: string; limit?: string }) => c.voices.list({ page: o.page as never, limit: o.limit as never })));
  voices.command('get').description('one voice').argument('<id>').action(act(undefined, (c, _g, id: string) => c.voices.get(id)));
  voices.command('delete').description('delete a voice').argument('<id>').action(act(undefined, (c, _g, id: string) => c.voices.delete(id)));

  registerWebhooks(root, act);

  root
    .command('mcp')
    .description('serve the gensvc tools to a local agent over MCP (stdio), with GENSVC_BASE_URL and GENSVC_API_KEY')
    // Loaded only here: the MCP SDK is not needed by the other commands.
    .action(async (_o: unknown, cmd: Command) => (await import('./mcp.js')).serveMcp(clientOf(globals(cmd))));

  return root;
}

/** Whether a credential was given (GENSVC_API_KEY or --api-key). */
function apiKeyGiven(argv: string[]): boolean {
  return Boolean(process.env.GENSVC_API_KEY) || argv.some((a) => a === '--api-key' || a.startsWith('--api-key='));
}

async function main(argv: string[]): Promise<void> {
  const cli = program();
  cli.exitOverride();
  let usage = '';
  cli.configureOutput({
    outputError: (text, write) => {
      usage += text;
      if (!mode.json) write(text);
    },
  });
  for (const sub of cli.commands) {
    sub.exitOverride();
    sub.configureOutput({ outputError: (text, write) => ((usage += text), mode.json ? undefined : write(text)) });
    for (const leaf of sub.commands) {
      leaf.exitOverride();
      leaf.configureOutput({ outputError: (text, write) => ((usage += text), mode.json ? undefined : write(text)) });
    }
  }
  if (argv.length === 0) {
    cli.outputHelp();
    return;
  }
  try {
    await cli.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return;
      if (mode.json) printError({ code: 'USAGE', message: (usage || err.message).replace(/^error: /, '').trim() }, { ...mode, json: true });
      process.exitCode = EXIT.usage;
      return;
    }
    if (err instanceof UsageError) {
      printError({ code: 'USAGE', message: err.message }, mode);
      process.exitCode = EXIT.usage;
      return;
    }
    if (err instanceof ApiError && err.status === 401 && !apiKeyGiven(argv)) {
      // The API only knows that no credential came; say where one goes.
      printError({ ...err.toJSON().error, message: 'no API key: set GENSVC_API_KEY (or pass --api-key) to an account API key or an OAuth access token' }, mode);
    } else if (err instanceof ApiError) printError(err.toJSON().error, mode);
    else if (err instanceof GensvcError) printError({ code: (err as { code?: string }).code ?? 'CLIENT_ERROR', message: err.message }, mode);
    else printError({ code: 'CLIENT_ERROR', message: err instanceof Error ? err.message : String(err) }, mode);
    process.exitCode = EXIT.error;
  }
}

await main(process.argv.slice(2));
