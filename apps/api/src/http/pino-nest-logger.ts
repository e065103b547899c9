import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

type Level = 'info' | 'error' | 'warn' | 'debug' | 'trace';

/**
 * Routes Nest's log lines into the structured logger. Two call shapes arrive here:
 * - Nest's own, `(message, context)` and `error(message, stack, context)`;
 * - the codebase's structured one through a `Logger` with a context,
 *   `logger.warn({ taskId, err }, 'what happened')`, which Nest hands on as
 *   `(fields, 'what happened', context)`: the fields become the line's fields (an `err`
 *   serialized by pino) and the text its message, never `[object Object]`.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, ...params: unknown[]) {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]) {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.write('trace', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    const [fields, text] = entry(level, message, params);
    this.logger[level](fields, text);
  }
}

/** The fields and the message of one call (exported for its spec). */
export function entry(level: Level, message: unknown, params: readonly unknown[]): [Record<string, unknown>, string] {
  const last = params[params.length - 1];
  const context = params.length && (typeof last === 'string' || last === undefined) ? last : undefined;
  const rest = context === undefined && !params.length ? [] : params.slice(0, -1);
  if (message && typeof message === 'object' && !(message instanceof Error)) {
    const text = typeof rest[0] === 'string' ? rest[0] : '';
    return [{ ...(message as Record<string, unknown>), context }, text];
  }
  if (message instanceof Error) return [{ context, err: message }, message.message];
  if (level === 'error' && typeof rest[0] === 'string') return [{ context, trace: rest[0] }, String(message)];
  return [{ context }, String(message)];
}
