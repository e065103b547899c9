import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import request from 'supertest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@gensvc/config';
import { createApp } from '../../apps/api/src/bootstrap';
import type { AppOverrides } from '../../apps/api/src/app.module';
import type { TestApp } from './test-app';

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * The whole app served on a real port whose address is its PUBLIC_BASE_URL (upload URLs,
 * signed links and OAuth metadata point back at it), for clients that speak HTTP themselves
 * (the SDK, the CLI, MCP clients).
 */
export async function startServedApp(options: { env?: Record<string, string>; overrides?: AppOverrides } = {}): Promise<TestApp & { baseUrl: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gensvc-served-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({ LOG_LEVEL: 'silent', LOCAL_SUPPLIER_DELAY_MS: '200', ...options.env, DATA_DIR: dataDir, PORT: String(port), PUBLIC_BASE_URL: baseUrl });
  const app = await createApp(config, options.overrides);
  await app.listen(port, '127.0.0.1');
  return {
    app,
    config,
    dataDir,
    baseUrl,
    http: () => request(app.getHttpServer()),
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
