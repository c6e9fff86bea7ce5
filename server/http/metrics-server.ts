import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer } from './app-server.js';
import { errorResponse } from '../errors.js';
import { metricsEndpoint } from './metrics-endpoint.js';
import type { Metrics } from '../observability/metrics.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * GET /metrics on a port of its own, for processes that serve no HTTP otherwise (`npm run worker` with
 * METRICS_PORT). Same text and the same METRICS_TOKEN rule as an app node's /metrics; anything else is a JSON 404.
 */
export async function startMetricsServer(options: {
  metrics: Metrics;
  token?: string;
  port: number;
  host?: string;
}): Promise<MetricsServer> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsEndpoint(options.metrics, options.token));
  app.use((req, res) => {
    const { status, body } = errorResponse(
      'not_found',
      `No endpoint ${req.method} ${req.path}: this port serves GET /metrics only.`,
    );
    res.status(status).json(body);
  });
  const server: Server = createAppServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
