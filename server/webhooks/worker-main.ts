/**
 * `npm run worker`: the webhook delivery worker alone (with the charge-hold sweeper), for deployments that run it
 * apart from the app servers.
 * Several workers and app servers can share one MySQL database; SIGTERM finishes attempts in flight first.
 */
import { openDatabase } from '../../db/client.js';
import { migrateToLatest } from '../../db/migrate.js';
import { createHoldSweeper } from '../domain/credits/hold-sweeper.js';
import { loadConfigOrExit } from '../env.js';
import { createWebhookWorker } from './worker.js';
import { closeOnSignals } from '../process-signals.js';

async function main() {
  const config = loadConfigOrExit();
  const handle = openDatabase(config.databaseUrl);
  await migrateToLatest(handle.db);
  const worker = createWebhookWorker({ db: handle.db, retryDelaysMs: config.webhookRetryDelaysMs, allowPrivateNetwork: config.allowPrivateNetwork });
  worker.start();
  // Worker processes sweep dead charge holds too, so refunds happen even when no app server is running.
  const sweeper = createHoldSweeper({ db: handle.db, timeoutMs: config.chargeHoldTimeoutMs });
  sweeper.start();
  console.log(`Roomstage webhook worker running (${handle.dialect} database)`);

  closeOnSignals('deliveries in flight', async () => {
    await worker.stop();
    await sweeper.stop();
    await handle.close();
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
