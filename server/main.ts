import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequestHandler } from '@remix-run/express';
import type { ServerBuild } from '@remix-run/node';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import express from 'express';
import type { Clock } from './clock.js';
import { type Config, loadConfigOrExit } from './env.js';
import { errorResponse } from './errors.js';
import {
  apiNotFound,
  emptyBodyIsJson,
  jsonBody,
  jsonErrorHandler,
  limitTrpcBatch,
  refuseMalformedPaths,
} from './http/api-middleware.js';
import { createAppServer } from './http/app-server.js';
import { compressText } from './http/compression.js';
import { docsRouter } from './http/docs.js';
import { STRIPE_WEBHOOK_PATH, simulatedCheckoutRouter, stripeWebhookRouter } from './http/billing-routes.js';
import { imageFilesRouter } from './http/image-files.js';
import { dashboardBodyLimit } from './http/body-limits.js';
import { MAX_PRODUCT_IMAGE_BYTES } from './imaging/product-image.js';
import { IMAGE_UPLOAD_PATHS, imageRequestBody } from './http/image-upload.js';
import { PRODUCT_UPLOAD_PATH, productUploadBody } from './http/product-upload.js';
import { metricsEndpoint } from './http/metrics-endpoint.js';
import { refuseCrossSiteForms } from './http/same-origin.js';
import { dashboardLoadContext } from './http/dashboard-context.js';
import { embeddableResources, securityHeaders } from './http/security-headers.js';
import { originalPagesRouter } from './http/original-pages.js';
import { BufferedResponse } from './response-control.js';
import {
  buildOpenApiDocument,
  createContextFactory,
  createRestBridge,
  logServerFaults,
  responseMetaFor,
} from './http/openapi.js';
import { proceduresOf, rewriteBridgeErrors } from './adapters/library-internals.js';
import { appRouter } from './root.js';
import type { Meta } from './trpc/index.js';
import { log } from './observability/logger.js';
import { createRouteLabeler, requestLogging } from './observability/request-log.js';
import { PROJECT_ROOT } from './paths.js';
import { isClusterProcess, runClusterPrimary } from './cluster.js';
import { giveBuffersHeadroom } from './heap.js';
import { closeOnSignals } from './process-signals.js';
import {
  type BackgroundWorkOptions,
  createServices,
  prepareDatabase,
  type Services,
  startBackgroundWork,
} from './services.js';

const REMIX_BUILD = path.join(PROJECT_ROOT, 'build', 'index.js');
/** Bodies of /trpc calls and dashboard form posts; image uploads have their own limits (./http/image-upload.ts). */
const BODY_LIMIT_BYTES = 1024 * 1024;

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  server: Server;
  close(): Promise<void>;
}

async function loadRemixBuild(): Promise<ServerBuild | null> {
  if (!existsSync(REMIX_BUILD)) return null;
  return (await import(pathToFileURL(REMIX_BUILD).href)) as ServerBuild;
}

/** Composes the one HTTP server: /api/v1 (bridge), /api/health, /trpc, /docs, static assets and the dashboard. */
async function createApp(services: Services) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', services.config.trustProxy);
  const createContext = createContextFactory(services);
  const createApiContext = createContextFactory(services, { refuseCrossSite: true });

  const openApiDocument = buildOpenApiDocument(services.config.publicBaseUrl);
  const routeOf = createRouteLabeler({
    apiPaths: [...Object.keys(openApiDocument.paths ?? {}), STRIPE_WEBHOOK_PATH],
    procedures: proceduresOf(appRouter).map(({ path }) => path),
  });
  app.use(requestLogging({ log, metrics: services.metrics, routeOf }));
  app.use(securityHeaders({ publicBaseUrl: services.config.publicBaseUrl }));
  app.use(refuseMalformedPaths);
  app.use(compressText());
  app.get('/metrics', metricsEndpoint(services.metrics, services.config.metricsToken));
  app.get('/api/v1/openapi.json', (_req, res) => res.json(openApiDocument));

  app.use(
    '/trpc',
    limitTrpcBatch,
    createExpressMiddleware({
      router: appRouter,
      createContext: ({ req }) => createApiContext({ req, response: new BufferedResponse() }),
      responseMeta: responseMetaFor as never,
      onError: logServerFaults,
      maxBodySize: BODY_LIMIT_BYTES,
    }),
  );

  // Image endpoints take multipart forms and JSON up to ten base64 images; every other /api body stays under 1 MB.
  // The pre-check refuses a key for the scope the endpoint's procedure declares, as the procedure would.
  const scopeOfImagePath = new Map(
    proceduresOf<Meta>(appRouter)
      .filter(({ meta }) => meta?.openapi?.method === 'POST')
      .map(({ meta }) => [meta?.openapi?.path, meta?.scope] as const),
  );
  app.post(
    [...IMAGE_UPLOAD_PATHS],
    imageRequestBody(services, (path) => scopeOfImagePath.get(path as `/${string}`)),
  );
  app.post(PRODUCT_UPLOAD_PATH, productUploadBody);
  app.use(stripeWebhookRouter(services));
  app.use('/api', emptyBodyIsJson, jsonBody(BODY_LIMIT_BYTES));
  app.all('/api/*', rewriteBridgeErrors, createRestBridge(services));
  app.use('/api', apiNotFound, jsonErrorHandler);

  app.use('/docs', docsRouter(openApiDocument));
  app.use(simulatedCheckoutRouter(services));
  app.use('/images', embeddableResources, imageFilesRouter(services));
  app.use('/o', originalPagesRouter(services));

  const build = await loadRemixBuild();
  app.use('/build', express.static(path.join(PROJECT_ROOT, 'public', 'build'), { immutable: true, maxAge: '1y' }));
  app.use(express.static(path.join(PROJECT_ROOT, 'public'), { maxAge: '1h' }));
  if (build) {
    app.all(
      '*',
      refuseCrossSiteForms(services.config.publicBaseUrl),
      // The product form carries a picture of up to 5 MB, with room for the other fields.
      dashboardBodyLimit(BODY_LIMIT_BYTES, { '/ads/products': MAX_PRODUCT_IMAGE_BYTES + 256 * 1024 }),
      createRequestHandler({
        build,
        mode: services.config.nodeEnv === 'production' ? 'production' : 'development',
        getLoadContext: dashboardLoadContext(services, createContext),
      }),
    );
  } else {
    app.all('*', (_req, res) =>
      res
        .status(503)
        .type('text')
        .send('The dashboard is not built yet: run `npm run build` (npm start does it for you).'),
    );
  }
  // Last: whatever a route let through is answered as JSON; Express's own handler would print the stack as HTML.
  app.use(jsonErrorHandler);
  return app;
}

export async function startServer(
  config: Config,
  options: {
    clock?: Clock;
    onQuery?: (sql: string) => void;
    webhookWorker?: BackgroundWorkOptions['webhookWorker'];
    mailSender?: BackgroundWorkOptions['mailSender'];
  } = {},
): Promise<RunningServer> {
  const handle = await createServices(config, options);
  // BACKGROUND_WORK=inline (the default) delivers webhooks and runs jobs in this process; `off` leaves them to
  // `npm run worker`. Every server process sweeps dead charge holds and runs retention either way.
  const background = startBackgroundWork(handle.services, {
    queues: config.backgroundWork === 'inline',
    webhookWorker: options.webhookWorker,
    mailSender: options.mailSender,
  });
  const app = await createApp(handle.services);
  const server = createAppServer(app);
  server.keepAliveTimeout = 65_000;
  // Requests Node cannot even parse still get a JSON body, never an empty reply.
  server.on('clientError', (_error, socket) => {
    if (!socket.writable) return socket.destroy();
    const body = JSON.stringify(errorResponse('invalid_request', 'The HTTP request is malformed.').body);
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  // While shutting down, each connection closes as soon as its in-flight response is done (keep-alive sockets
  // would otherwise hold the server open for keepAliveTimeout).
  server.on('request', (_req, res) => {
    if (closing) res.setHeader('Connection', 'close');
    res.on('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    services: handle.services,
    server,
    close: () =>
      (closing ??= (async () => {
        // Finish in-flight requests, drop idle keep-alive sockets, then close the pool.
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await background.stop();
        await handle.close();
      })()),
  };
}

async function main() {
  giveBuffersHeadroom();
  const config = loadConfigOrExit();
  // WEB_CONCURRENCY > 1: this process becomes the cluster's primary and forks the app processes, which run below.
  if (config.webConcurrency > 1 && !isClusterProcess()) {
    return runClusterPrimary({ role: 'web', processes: config.webConcurrency, prepare: () => prepareDatabase(config) });
  }
  // The signals are taken before the server says it listens: one that came between that line and the handlers would
  // meet the default action and kill the process with requests in flight.
  const starting = startServer(config);
  // A server that failed to start has no connections to cut.
  const cutConnections = () =>
    starting.then(
      (running) => running.server.closeAllConnections(),
      () => {},
    );
  closeOnSignals('in-flight requests', async () => (await starting).close(), { force: () => void cutConnections() });
  const running = await starting;
  log.info(
    { port: running.port, database: running.services.dialect, storage: config.storageUrl.split('?')[0] },
    `Roomstage listening on ${config.publicBaseUrl}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    log.fatal({ err: error }, 'Roomstage could not start');
    process.exit(1);
  });
}
