import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const ROOT = join(__dirname, '..', '..');
const CONSOLE_SRC = join(ROOT, 'apps', 'console');
const CONSOLE_DIST = join(ROOT, 'dist', 'console', 'index.html');
/** The SDK's sources, bundled into the console. */
const SDK_SRC = join(ROOT, 'packages', 'sdk', 'src');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Builds the console (vite) unless dist/console is newer than its sources and the SDK's. */
export function buildConsole(): void {
  if (existsSync(CONSOLE_DIST) && statSync(CONSOLE_DIST).mtimeMs >= Math.max(newest(CONSOLE_SRC), newest(SDK_SRC))) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', join(CONSOLE_SRC, 'vite.config.mts'), '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far (CSP violations included). */
  errors: string[];
  close(): Promise<void>;
}

/** Chromium with a fresh profile; every console error and uncaught page error is recorded. */
export async function openBrowser(): Promise<Browser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'gensvc-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 860 },
    locale: 'en-GB',
    timezoneId: 'Asia/Shanghai',
    acceptDownloads: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  const watch = (p: Page) => {
    p.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${p.url()}: ${m.text()}`);
    });
    p.on('pageerror', (e) => errors.push(`${p.url()}: ${e.message}`));
  };
  watch(page);
  context.on('page', watch);
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * axe-core on the current page (WCAG 2.x A/AA rules and best practices). Injected through
 * the DevTools protocol, so the page's CSP stays as strict as in production.
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate<{ violations: AxeViolation[] }>("axe.run(document, { resultTypes: ['violations'] })");
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
}

/** Only the serious and critical violations, in a readable form (the test expects none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  return (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${page.url()} ${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
