import { createLogger } from '@gensvc/logging';
import { loadConfig } from '@gensvc/config';
import { createApp } from './bootstrap';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  createLogger(config.logLevel).info({ url: config.publicBaseUrl, port: config.port, host: config.host }, 'gensvc listening');
}

main().catch((err) => {
  process.stderr.write(`gensvc failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
