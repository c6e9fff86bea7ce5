import { openDatabase } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { createLucia } from './auth/lucia.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './env.js';
import { createRequestRateLimiter } from './limits/request-rate.js';
import { syncProductCatalog } from './domain/ads/products.js';
import { SPONSORED_PRODUCTS } from './imaging/catalog-data.js';
import { createImageEngine } from './imaging/sharp-engine.js';
import { openImageStorage } from './storage/open.js';
import type { Services } from './trpc.js';

export interface ServiceHandle {
  services: Services;
  close(): Promise<void>;
}

/** Opens the database, brings it to the latest migration and wires the long-lived services. */
export async function createServices(config: Config, options: { clock?: Clock } = {}): Promise<ServiceHandle> {
  const handle = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(handle.db);
    await syncProductCatalog(handle.db, SPONSORED_PRODUCTS);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const services: Services = {
    config,
    db: handle.db,
    dialect: handle.dialect,
    auth: createLucia(handle.db, { secureCookies: config.publicBaseUrl.startsWith('https://') }),
    clock,
    startedAt: clock.now(),
    engine: createImageEngine(),
    storage: openImageStorage(config.storageUrl, config.publicBaseUrl),
    requestRateLimiter: createRequestRateLimiter(handle.db, { perMinute: config.rateLimitPerMinute }),
  };
  return { services, close: () => handle.close() };
}
