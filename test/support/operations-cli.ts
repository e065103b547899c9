import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const ADMIN_CLI = join(ROOT, 'dist', 'apps', 'admin', 'src', 'main.js');
/** The client CLI's launcher (apps/cli, an ES module package on @gensvc/sdk; it rebuilds itself when stale). */
export const CLIENT_CLI = join(ROOT, 'apps', 'cli', 'bin', 'gensvc.js');

/** A lock file of this checkout (other checkouts on the machine build their own dist/). */
function checkoutLock(name: string): string {
  return join(tmpdir(), `gensvc-${name}-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
}

/**
 * Builds the apps once per test file (`nest build api` compiles every app under apps/),
 * serialized across the test files of this checkout by a lock, so parallel suites do not write
 * dist/ together.
 * Type errors elsewhere do not stop tsc from emitting; only a missing entry point fails.
 * The SDK is built first (under the CLI's lock, which builds it too): the API imports
 * `@gensvc/sdk`, which the build leaves a package import only when the package's dist/ exists.
 */
export function buildApps(entry: string): void {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  spawnSync('flock', [checkoutLock('cli-build'), process.execPath, tsc, '-b', join(ROOT, 'packages', 'sdk')], { cwd: ROOT, stdio: 'ignore', timeout: 300_000 });
  const nest = join(ROOT, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js');
  spawnSync('flock', [checkoutLock('e2e-build'), process.execPath, nest, 'build', 'api'], { cwd: ROOT, stdio: 'ignore', timeout: 300_000 });
  if (!existsSync(entry)) throw new Error(`${entry} did not build`);
}

/**
 * Builds the client CLI and the SDK it references (tsc -b apps/cli: only their own dist/
 * directories), serialized across the test files of this checkout by a lock of its own, so
 * the CLI's launcher then finds the build up to date.
 */
export function buildClientCli(): void {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync('flock', [checkoutLock('cli-build'), process.execPath, tsc, '-b', join(ROOT, 'apps', 'cli')], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 });
  if (run.status !== 0) throw new Error(`the client CLI did not build: ${run.stdout} ${run.stderr}`);
}

/** The error object a CLI printed on stderr (its last line that is one). */
export function errorJson(stderr: string): { error: Record<string, unknown> } {
  const lines = stderr.split('\n').filter((l) => l.trim().startsWith('{"error"'));
  if (lines.length === 0) throw new Error(`no error object on stderr: ${stderr.slice(0, 500)}`);
  return JSON.parse(lines[lines.length - 1]) as { error: Record<string, unknown> };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a built CLI entry point with the given environment (added to this process's); `executable`: run `entry` itself, not with node. */
export function runCli(entry: string, args: string[], env: Record<string, string | undefined>, input?: Buffer, executable = false): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable ? entry : process.execPath, executable ? args : [entry, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    if (input) child.stdin!.end(input);
  });
}

/** Exactly one JSON object on stdout. */
export function oneJson(stdout: string): Record<string, unknown> {
  const lines = stdout.split('\n').filter((l) => l.trim());
  if (lines.length !== 1) throw new Error(`expected one JSON line on stdout, got ${lines.length}: ${stdout.slice(0, 500)}`);
  return JSON.parse(lines[0]) as Record<string, unknown>;
}
