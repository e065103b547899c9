import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { loadConfig, type AppConfig } from '@gensvc/config';
import { createApp } from '../../apps/api/src/bootstrap';
import type { AppOverrides } from '../../apps/api/src/app.module';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  dataDir: string;
  http: () => ReturnType<typeof request>;
  close(): Promise<void>;
}

/**
 * Starts the whole HTTP app on embedded stores in a fresh data directory (or the given one,
 * to test restarts). `env` overrides configuration variables.
 */
export async function startTestApp(options: { env?: Record<string, string>; dataDir?: string; overrides?: AppOverrides; port?: number } = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gensvc-e2e-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', LOCAL_SUPPLIER_DELAY_MS: '50', ...options.env, DATA_DIR: dataDir });
  const app = await createApp(config, options.overrides);
  await app.listen(options.port ?? 0, '127.0.0.1');
  const server = app.getHttpServer();
  return {
    app,
    config,
    dataDir,
    http: () => request(server),
    async close() {
      await app.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The spec's error object, exactly. */
export function expectError(body: unknown, code: string): void {
  expect(body).toEqual({ error: { code, message: expect.any(String), request_id: expect.any(String) } });
}
