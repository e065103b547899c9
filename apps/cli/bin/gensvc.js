#!/usr/bin/env node
/*
 * `gensvc`: the client CLI (apps/cli). Runs the build output; builds first when it is
 * missing (build output goes to stderr, so stdout carries only the command's JSON).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..', '..');
const entry = join(root, 'dist', 'apps', 'cli', 'src', 'main.js');
if (!existsSync(entry)) {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0 || !existsSync(entry)) {
    process.stdout.write(JSON.stringify({ error: { code: 'BUILD_FAILED', message: 'the build failed; see stderr' } }) + '\n');
    process.exit(1);
  }
}
require(entry);
