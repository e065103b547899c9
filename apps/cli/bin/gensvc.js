#!/usr/bin/env node
/*
 * `gensvc`: the client CLI and local MCP server (apps/cli, on @gensvc/sdk). Runs the build
 * output, rebuilding it first (tsc -b: the CLI and the SDK it references) when it is missing
 * or older than a source file of the checkout it runs from. Build output goes to stderr:
 * stdout carries only the command's output (or the MCP protocol).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cliRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(cliRoot, 'dist', 'main.js');
const sdkRoot = join(cliRoot, '..', '..', 'packages', 'sdk');

/** Newest modification time of the files under `dir` (0 when it does not exist). */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    latest = Math.max(latest, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return latest;
}

const sources = [join(cliRoot, 'src'), join(sdkRoot, 'src')];
const configs = [join(cliRoot, 'tsconfig.json'), join(sdkRoot, 'tsconfig.json')].filter(existsSync);
const built = existsSync(entry) ? statSync(entry).mtimeMs : 0;
const stale = !built || Math.max(...sources.map(newest), ...configs.map((c) => statSync(c).mtimeMs)) > built;
if (stale && existsSync(join(cliRoot, 'src')) && existsSync(join(sdkRoot, 'src'))) {
  const tsc = createRequire(join(cliRoot, 'package.json')).resolve('typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-b', join(cliRoot, 'tsconfig.json')], { cwd: cliRoot, stdio: ['ignore', 2, 2] });
  if (build.status !== 0 || !existsSync(entry)) {
    process.stderr.write('gensvc: building the CLI failed (see above)\n');
    process.exit(1);
  }
  const now = new Date();
  utimesSync(entry, now, now); // up to date even when tsc had nothing to rewrite
}
// A reader that stops early (`gensvc models | head`) ends the output, not in an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
await import(pathToFileURL(entry).href);
