/**
 * `npm run worker`: the webhook delivery worker alone, for deployments that run it apart from the app servers.
 * Several workers and app servers can share one MySQL database; SIGTERM finishes attempts in flight first.
 */
import { openDatabase } from '../../db/client.js';
import { migrateToLatest } from '../../db/migrate.js';
import { ConfigError, loadConfig } from '../env.js';
import { createWebhookWorker } from './worker.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const handle = openDatabase(config.databaseUrl);
  await migrateToLatest(handle.db);
  const worker = createWebhookWorker({ db: handle.db, retryDelaysMs: config.webhookRetryDelaysMs, allowPrivateNetwork: config.allowPrivateNetwork });
  worker.start();
  console.log(`Roomstage webhook worker running (${handle.dialect} database)`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing deliveries in flight…`);
    worker
      .stop()
      .then(() => handle.close())
      .then(
        () => process.exit(0),
        (error) => {
          console.error('Shutdown failed:', error);
          process.exit(1);
        }
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
