// `npm run admin -- <command>`: the operator console from a shell, over the database DATABASE_URL names (see
// admin-commands.ts). Opens nothing for `help` or a command line that cannot run.
import { openDatabase } from '../../db/client.js';
import { systemClock } from '../clock.js';
import { openPaymentGateway } from '../domain/billing/open.js';
import { loadConfig } from '../env.js';
import { openImageStorage } from '../storage/open.js';
import { runAdminCommand } from './admin-commands.js';

let close = async () => {};
const outcome = await runAdminCommand(process.argv.slice(2), async () => {
  const config = loadConfig();
  const handle = openDatabase(config.databaseUrl);
  close = () => handle.close();
  return {
    db: handle.db,
    payments: openPaymentGateway(config),
    storage: openImageStorage(config.storageUrl, config.publicBaseUrl),
    clock: systemClock,
    earningsHoldMs: config.earningsHoldMs,
  };
});
await close();
process.stdout.write(outcome.stdout);
process.stderr.write(outcome.stderr);
process.exitCode = outcome.exitCode;
