import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
export const ADMIN_CLI = join(ROOT, 'dist', 'apps', 'admin', 'src', 'main.js');
export const CLIENT_CLI = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

/**
 * Builds the apps once per test file (`nest build api` compiles every app under apps/),
 * serialized across test files by a lock, so parallel suites do not write dist/ together.
 * Type errors elsewhere do not stop tsc from emitting; only a missing entry point fails.
 */
export function buildApps(entry: string): void {
  const nest = join(ROOT, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js');
  spawnSync('flock', ['/tmp/gensvc-e2e-build.lock', process.execPath, nest, 'build', 'api'], { cwd: ROOT, stdio: 'ignore', timeout: 300_000 });
  if (!existsSync(entry)) throw new Error(`${entry} did not build`);
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a built CLI entry point with the given environment (added to this process's). */
export function runCli(entry: string, args: string[], env: Record<string, string | undefined>, input?: Buffer): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], {
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
