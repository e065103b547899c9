import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT } from './support/operations-cli';

/**
 * The client CLI installed on its own from a fresh copy of the repository (what a clone has:
 * the files git knows, no node_modules, no dist): `npm install -g ./apps/cli` into a throw-away
 * prefix, then the installed `gensvc`, and `npx gensvc mcp` from the copy's root as an MCP
 * client starts it. npm reads packages from its cache (--offline): the lock file's versions,
 * which `npm ci` of this checkout put there.
 */
describe('the client CLI installed from a fresh clone', () => {
  let copy: string;
  let prefix: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    const work = mkdtempSync(join(tmpdir(), 'gensvc-cli-install-'));
    copy = join(work, 'repo');
    prefix = join(work, 'prefix');
    const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (files.status !== 0) throw new Error(`git ls-files failed: ${files.stderr}`);
    for (const file of files.stdout.split('\0').filter(Boolean)) {
      const from = join(ROOT, file);
      if (!existsSync(from) || !statSync(from).isFile()) continue; // deleted in the work tree
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(from, join(copy, file));
    }
    // This process may run under npm: none of its settings reach the installs below.
    env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|registry|nodedir)$/i.test(k)));
  }, 120_000);

  afterAll(() => {
    if (copy) rmSync(dirname(copy), { recursive: true, force: true });
  });

  it('installs with `npm install -g ./apps/cli`, without the server dependencies, and runs', () => {
    expect(existsSync(join(copy, 'node_modules'))).toBe(false);
    const install = spawnSync('npm', ['install', '-g', '--prefix', prefix, './apps/cli', '--offline', '--no-audit', '--no-fund'], { cwd: copy, env, encoding: 'utf8', timeout: 480_000 });
    expect({ status: install.status, stderr: install.status === 0 ? '' : install.stderr }).toEqual({ status: 0, stderr: '' });

    const gensvc = join(prefix, 'bin', 'gensvc');
    const help = spawnSync(gensvc, ['--help'], { cwd: tmpdir(), env, encoding: 'utf8', timeout: 120_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: gensvc \[options\] \[command\]/);
    expect(help.stdout).toContain('mcp');
    const quoteHelp = spawnSync(gensvc, ['help', 'quote'], { cwd: tmpdir(), env, encoding: 'utf8', timeout: 60_000 });
    expect(quoteHelp.status).toBe(0);
    expect(quoteHelp.stdout).toContain('Usage: gensvc quote');
    const typo = spawnSync(gensvc, ['modles'], { cwd: tmpdir(), env, encoding: 'utf8', timeout: 60_000 });
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('models');

    // The CLI's part of the lock file only: the SDK and the CLI's dependencies, none of the server's.
    const installed = (name: string) => existsSync(join(copy, 'node_modules', name, 'package.json'));
    expect(['@gensvc/sdk', '@modelcontextprotocol/sdk', 'file-type', 'typescript'].filter((n) => !installed(n))).toEqual([]);
    expect(['@nestjs/core', 'mongodb', 'minio', '@eventstore/db-client', 'preact', 'jest'].filter(installed)).toEqual([]);
    expect(existsSync(join(copy, 'apps', 'cli', 'dist', 'main.js'))).toBe(true);
    expect(existsSync(join(copy, 'dist'))).toBe(false);
  }, 600_000);

  it('serves the tools over stdio with `npx gensvc mcp` from the repository root', async () => {
    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['--no', 'gensvc', 'mcp'],
      cwd: copy,
      env: { ...(env as Record<string, string>), GENSVC_BASE_URL: 'http://127.0.0.1:9', GENSVC_API_KEY: 'gsk_unused' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'install-check', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['models.list', 'quotes.create', 'tasks.create', 'assets.upload.file']));
    } finally {
      await client.close();
    }
  }, 120_000);
});
