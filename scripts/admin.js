#!/usr/bin/env node
/*
 * `npm run --silent admin -- <command>`: runs the admin CLI from the build output, building
 * first when the build is missing or older than the sources (build output goes to stderr,
 * so stdout carries exactly one JSON object).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const entry = join(root, 'dist', 'apps', 'admin', 'src', 'main.js');

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (e.name.endsWith('.ts') || e.name.endsWith('.json')) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

const stale = !existsSync(entry) || statSync(entry).mtimeMs < Math.max(newest(join(root, 'apps')), newest(join(root, 'libs')));
if (stale) {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) {
    process.stdout.write(JSON.stringify({ error: { code: 'BUILD_FAILED', message: 'the build failed; see stderr' } }) + '\n');
    process.exit(1);
  }
}
const run = spawnSync(process.execPath, [entry, ...process.argv.slice(2)], { cwd: process.cwd(), stdio: 'inherit' });
process.exit(run.status ?? 1);
