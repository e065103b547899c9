import type { AdminUseCases } from './admin-use-cases';

/** Parsed `--flag value` options of one admin command (`--flag` alone is `true`). */
export type Flags = Record<string, string | boolean | undefined>;

/**
 * One admin command: `npm run --silent admin -- <words...> [ARGS...] [--flags]`. `run` gets
 * the use cases the admin app injected (`AdminUseCases`) and returns the one JSON object
 * printed on stdout; it throws an AppError (or any error) to fail.
 */
export interface AdminCommand {
  /** The command words, e.g. ['account', 'create']. */
  readonly words: readonly string[];
  readonly usage: string;
  /** Names of the positional arguments it takes after its words (e.g. ['FILE']); none when absent. */
  readonly args?: readonly string[];
  run(use: AdminUseCases, flags: Flags, args: readonly string[]): Promise<unknown>;
}

export function requireFlag(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** The positional argument at `index`, named `name` in the usage. */
export function requireArg(args: readonly string[], index: number, name: string): string {
  const v = args[index];
  if (v === undefined || v === '') throw new UsageError(`${name} is required`);
  return v;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
