import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { AppError, RequestContexts, createLogger, loadConfig } from '@gensvc/shared';
import { PinoNestLogger } from '../../api/src/http/pino-nest-logger';
import { AdminModule } from './admin.module';
import { UsageError, type AdminCommand, type Flags } from './command';
import { COMMANDS } from './commands';

function print(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

function fail(code: string, message: string): never {
  print({ error: { code, message } });
  process.exit(code === 'USAGE' ? 2 : 1);
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
  try {
    flags = parseArgs({ args: found.rest, strict: false, allowPositionals: false, options: flagOptions(found.rest) }).values as Flags;
  } catch (err) {
    fail('USAGE', (err as Error).message);
  }
  const config = loadConfig();
  const logger = createLogger(process.env.LOG_LEVEL || 'warn', 'gensvc-admin');
  const app = await NestFactory.createApplicationContext(AdminModule.forRoot(config), { logger: new PinoNestLogger(logger), abortOnError: false });
  try {
    const result = await RequestContexts.run({ requestId: `admin_${Date.now()}`, actor: 'admin' }, () => found.command.run(app, flags));
    print(result);
  } catch (err) {
    if (err instanceof UsageError) fail('USAGE', `${err.message}; usage: ${found.command.usage}`);
    if (err instanceof AppError) fail(err.code, err.message);
    logger.error({ err }, 'admin command failed');
    fail('INTERNAL', (err as Error).message);
  } finally {
    await app.close();
  }
}

main().catch((err) => fail('INTERNAL', err instanceof Error ? err.message : String(err)));
