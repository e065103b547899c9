#!/usr/bin/env node
/*
 * `prepare` of @gensvc/cli. npm runs it in apps/cli after installing the package from its
 * folder: `npm install -g ./apps/cli` links the global `gensvc` to this folder of the checkout
 * (npm installs a folder as a link and does not install the folder's own dependencies), and
 * `npm install` at the repository root installs it as a workspace.
 *
 * When the CLI's dependencies already resolve from here (the checkout was installed), there is
 * nothing to do. Otherwise (a fresh clone) it installs the CLI's part of the repository's lock
 * file and nothing else: `npm install --workspace apps/cli --omit=dev` at the repository root,
 * which brings the CLI, the SDK (packages/sdk, a workspace) and their dependencies at their
 * locked versions, none of the server's. Then it builds the CLI and the SDK (tsc -b), so the
 * first run starts at once; later the launcher (bin/gensvc.js) rebuilds when a source changes.
 * npm's output goes to stderr.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const cliRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(cliRoot, '..', '..');
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const fail = (message) => {
  process.stderr.write(`@gensvc/cli: ${message}\n`);
  process.exit(1);
};

/** Whether `name` is installed where Node looks for it from apps/cli (its node_modules, then each parent's). */
function installed(name) {
  for (let dir = cliRoot; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true;
    if (dirname(dir) === dir) return false;
  }
}

const pkg = readJson(join(cliRoot, 'package.json'));
const missing = Object.keys(pkg.dependencies ?? {}).filter((name) => !installed(name));
if (missing.length === 0) process.exit(0);

// The CLI is installed from the repository it belongs to: its dependency on the SDK and their
// versions come from the root package.json (workspaces) and package-lock.json.
const workspace = relative(repoRoot, cliRoot).split(sep).join('/');
const root = existsSync(join(repoRoot, 'package.json')) ? readJson(join(repoRoot, 'package.json')) : {};
if (!(root.workspaces ?? []).includes(workspace) || !existsSync(join(repoRoot, 'package-lock.json'))) {
  fail(`missing dependencies (${missing.join(', ')}), and ${repoRoot} is not the gensvc repository this CLI belongs to`);
}

// The child npm must not inherit this install's own settings (--global, --prefix, ...); the
// network and cache settings the user gave are kept.
const KEPT = /^npm_config_(registry|cache|userconfig|globalconfig|prefer_offline|prefer_online|offline|proxy|https_proxy|noproxy|cafile|ca|strict_ssl|fetch_.*|loglevel|nodedir|@.*:registry|\/\/.*)$/i;
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || KEPT.test(k)));
const npmCli = process.env.npm_execpath;
const [command, prefix] = npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
process.stderr.write(`@gensvc/cli: installing the CLI's dependencies (${missing.join(', ')}) into ${repoRoot} from its lock file\n`);
const install = spawnSync(command, [...prefix, 'install', '--workspace', workspace, '--omit=dev', '--ignore-scripts', '--no-save', '--no-audit', '--no-fund'], {
  cwd: repoRoot,
  env,
  stdio: ['ignore', 2, 2],
  shell: process.platform === 'win32',
});
if (install.status !== 0) fail(`npm install --workspace ${workspace} --omit=dev failed (see above)`);

const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const build = spawnSync(process.execPath, [existsSync(tsc) ? tsc : join(cliRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', cliRoot], { cwd: cliRoot, stdio: ['ignore', 2, 2] });
if (build.status !== 0) fail('building the CLI failed (see above)');
