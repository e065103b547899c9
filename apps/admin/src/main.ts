import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { AppError } from '@gensvc/kernel';
import { RequestContexts } from '@gensvc/event-sourcing';
import { createLogger } from '@gensvc/logging';
import { loadConfig } from '@gensvc/config';
import { PinoNestLogger } from '../../api/src/http/pino-nest-logger';
import { createAdminApp } from './admin.module';
import { UsageError, type AdminCommand, type Flags } from './command';
import { COMMANDS } from './commands';

function print(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/** The error JSON on stdout and a non-zero exit; `details` adds fields that name what is wrong (a catalogue file's model and field). */
function fail(code: string, message: string, details?: Record<string, unknown>): never {
  print({ error: { code, message, ...details } });
  process.exit(code === 'USAGE' ? 2 : 1);
}

/** Fields an error carries besides its code and message (`details`), if any. */
function detailsOf(err: AppError): Record<string, unknown> | undefined {
  const details = (err as AppError & { details?: unknown }).details;
  return details && typeof details === 'object' ? (details as Record<string, unknown>) : undefined;
}

/** `--flag value` takes the value (CONTRACT §1 syntax); `--flag` alone is a boolean. */
function flagOptions(args: string[]): Record<string, { type: 'string' | 'boolean' }> {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  args.forEach((a, i) => {
    if (!a.startsWith('--') || a.includes('=')) return;
    const next = args[i + 1];
    options[a.slice(2)] = { type: next !== undefined && !next.startsWith('--') ? 'string' : 'boolean' };
  });
  return options;
}

function findCommand(argv: string[]): { command: AdminCommand; rest: string[] } | undefined {
  const candidates = COMMANDS.filter((c) => c.words.every((w, i) => argv[i] === w));
  candidates.sort((a, b) => b.words.length - a.words.length);
  const command = candidates[0];
  return command ? { command, rest: argv.slice(command.words.length) } : undefined;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const found = findCommand(argv);
  if (!found) fail('USAGE', `unknown command; commands: ${COMMANDS.map((c) => c.usage).join(' | ')}`);
  let flags: Flags;
  let args: string[];
  const takes = found.command.args ?? [];
  try {
    const parsed = parseArgs({ args: found.rest, strict: false, allowPositionals: takes.length > 0, options: flagOptions(found.rest) });
    flags = parsed.values as Flags;
    args = parsed.positionals;
  } catch (err) {
    fail('USAGE', `${(err as Error).message}; usage: ${found.command.usage}`);
  }
  if (args.length > takes.length) fail('USAGE', `unexpected argument ${JSON.stringify(args[takes.length])}; usage: ${found.command.usage}`);
  const config = loadConfig();
  const logger = createLogger(process.env.LOG_LEVEL || 'warn', 'gensvc-admin');
  const { app, use } = await createAdminApp(config, { logger: new PinoNestLogger(logger), abortOnError: false });
  try {
    const result = await RequestContexts.run({ requestId: `admin_${Date.now()}`, actor: 'admin' }, () => found.command.run(use, flags, args));
    print(result);
  } catch (err) {
    if (err instanceof UsageError) fail('USAGE', `${err.message}; usage: ${found.command.usage}`);
    if (err instanceof AppError) fail(err.code, err.message, detailsOf(err));
    logger.error({ err }, 'admin command failed');
    fail('INTERNAL', (err as Error).message);
  } finally {
    await app.close();
  }
}

main().catch((err) => fail('INTERNAL', err instanceof Error ? err.message : String(err)));
