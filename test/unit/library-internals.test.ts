import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initTRPC, TRPCError } from '@trpc/server';
import express, { type RequestHandler } from 'express';
import { createOpenApiExpressMiddleware, type OpenApiMeta } from 'trpc-to-openapi';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  answerWithoutProcedure,
  keepJsonBodiesStrict,
  proceduresOf,
  rewriteBridgeErrors,
  setParsedBody,
} from '../../server/adapters/library-internals.js';
import { appRouter } from '../../server/root.js';

/**
 * Pins what server/adapters/library-internals.ts assumes about tRPC, trpc-to-openapi and Express's body parsers.
 * If an upgrade changes one of these behaviours, a test here fails before anything reaches production.
 */

const ERROR_BODY = { error: 'not_found', code: 'not_found', message: 'No such thing.' };

const t = initTRPC.meta<OpenApiMeta>().create({
  errorFormatter({ shape }) {
    return { ...shape, data: { ...shape.data, contract: { status: 404, body: ERROR_BODY } } };
  },
});

let procedureRuns = 0;
const echoInput = z.object({ name: z.string(), count: z.number() });
const tinyRouter = t.router({
  echo: t.procedure
    .meta({ openapi: { method: 'POST', path: '/echo' } })
    .input(echoInput)
    .output(echoInput)
    .mutation(({ input }) => input),
  missing: t.procedure
    .meta({ openapi: { method: 'GET', path: '/missing' } })
    .input(z.object({}).optional())
    .output(z.object({}))
    .query(() => {
      throw new TRPCError({ code: 'NOT_FOUND', message: 'No such thing.' });
    }),
  replayed: t.procedure
    .use(async ({ next }) => answerWithoutProcedure<Awaited<ReturnType<typeof next>>>({ replayed: true }))
    .query(() => {
      procedureRuns++;
      return { replayed: false };
    }),
});

const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function serve(...handlers: RequestHandler[]): Promise<string> {
  const app = express();
  app.use(...handlers);
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const bridge = () =>
  createOpenApiExpressMiddleware({ router: tinyRouter, createContext: () => ({}) }) as unknown as RequestHandler;

describe('tRPC internals', () => {
  it("lists every procedure of a router with its meta, by dotted path, from the router's _def", () => {
    const listed = proceduresOf<OpenApiMeta>(tinyRouter);
    expect(listed.map(({ path }) => path).sort()).toEqual(['echo', 'missing', 'replayed']);
    expect(listed.find(({ path }) => path === 'echo')?.meta?.openapi?.path).toBe('/echo');
    const health = proceduresOf<OpenApiMeta>(appRouter).find(({ path }) => path === 'health.check');
    expect(health?.meta?.openapi?.path).toBe('/api/health');
  });

  it('accepts a middleware that answers with the middleware-result marker instead of running the procedure', async () => {
    procedureRuns = 0;
    const caller = t.createCallerFactory(tinyRouter)({});
    expect(await caller.replayed()).toEqual({ replayed: true });
    expect(procedureRuns).toBe(0);
  });

  it("merges a middleware's context and chained inputs by Object.assign, with the same result (patches/)", async () => {
    const added = { user: 'ada' };
    const merging = t.router({
      run: t.procedure
        .input(z.object({ room: z.string() }))
        .input(z.object({ count: z.number() }))
        .use(({ next }) => next({ ctx: added }))
        .query(({ ctx, input }) => ({ ctx, input })),
    });
    const assign = vi.spyOn(Object, 'assign');
    const result = await t.createCallerFactory(merging)({ base: 1 }).run({ room: 'hall', count: 2 });
    const sources = assign.mock.calls.flatMap(([, ...copied]) => copied);
    assign.mockRestore();
    expect(result).toEqual({ ctx: { base: 1, user: 'ada' }, input: { room: 'hall', count: 2 } });
    // Unpatched, tRPC's spread helper copies key by key and never calls Object.assign.
    expect(sources).toContain(added);
  });
});

describe('trpc-to-openapi internals', () => {
  it('coerces numbers in JSON bodies by setting def.coerce, which keepJsonBodiesStrict pins off', async () => {
    const counter = () =>
      t.router({
        count: t.procedure
          .meta({ openapi: { method: 'POST', path: '/count/{id}' } })
          .input(z.object({ id: z.number(), count: z.number() }))
          .output(z.object({ id: z.number(), count: z.number() }))
          .mutation(({ input }) => input),
      });
    const serveCounter = (router: ReturnType<typeof counter>) =>
      serve(
        express.json(),
        createOpenApiExpressMiddleware({ router, createContext: () => ({}) }) as unknown as RequestHandler,
      );
    const post = (url: string, count: unknown) =>
      fetch(`${url}/count/7`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ count }),
      });
    // The library's own behaviour: "0x10" in a JSON body becomes 16.
    expect(await (await post(await serveCounter(counter()), '0x10')).json()).toEqual({ id: 7, count: 16 });
    const strict = counter();
    keepJsonBodiesStrict(strict);
    keepJsonBodiesStrict(strict);
    const url = await serveCounter(strict);
    expect((await post(url, '0x10')).status).toBe(400);
    // The path parameter is text in the URL and still converts.
    expect(await (await post(url, 16)).json()).toEqual({ id: 7, count: 16 });
  });

  it("still writes tRPC's error shape with the formatter's data, which the rewrite turns into exactly the contract body", async () => {
    const raw = await fetch(`${await serve(bridge())}/missing`);
    expect(raw.status).toBe(404);
    const rawBody = (await raw.json()) as { code: string; data: { contract: { body: unknown } } };
    expect(rawBody.code).toBe('NOT_FOUND');
    expect(rawBody.data.contract.body).toEqual(ERROR_BODY);

    const rewritten = await fetch(`${await serve(rewriteBridgeErrors, bridge())}/missing`);
    expect(rewritten.status).toBe(404);
    expect(await rewritten.json()).toEqual(ERROR_BODY);
  });

  it('leaves successful responses alone', async () => {
    const base = await serve(express.json(), rewriteBridgeErrors, bridge());
    const response = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'sofa', count: 2 }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'sofa', count: 2 });
  });

  it('hands createContext an abort signal without copying the request into a fetch Request (patches/)', async () => {
    const signals: AbortSignal[] = [];
    const bridgeKeepingSignals = createOpenApiExpressMiddleware({
      router: tinyRouter,
      createContext: ({ info }) => {
        signals.push(info.signal);
        return {};
      },
    }) as unknown as RequestHandler;
    const bodies: object[] = [];
    const keepBody: RequestHandler = (req, _res, next) => {
      bodies.push(req.body as object);
      next();
    };
    const stringify = vi.spyOn(JSON, 'stringify');
    const base = await serve(express.json(), keepBody, bridgeKeepingSignals);
    const response = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lamp', count: 3 }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'lamp', count: 3 });
    // Unpatched, the bridge builds a fetch Request for the signal, and that stringifies the parsed body once more.
    const copies = stringify.mock.calls.filter(([value]) => bodies.includes(value as object));
    stringify.mockRestore();
    expect(copies).toEqual([]);
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
    expect(signals[0]?.aborted).toBe(false);
  });

  it('makes the signal only when it is read, aborted if the client went away before the answer (patches/)', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowRouter = t.router({
      slow: t.procedure
        .meta({ openapi: { method: 'GET', path: '/slow' } })
        .input(z.object({}).optional())
        .output(z.object({}))
        .query(async () => {
          await held;
          return {};
        }),
    });
    const seen: Array<{ info: { signal: AbortSignal }; res: ServerResponse }> = [];
    const base = await serve(
      createOpenApiExpressMiddleware({
        router: slowRouter,
        createContext: ({ info, res }) => {
          seen.push({ info, res });
          return {};
        },
      }) as unknown as RequestHandler,
    );
    const client = new AbortController();
    const answered = fetch(`${base}/slow`, { signal: client.signal }).catch(() => null);
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    const [{ info, res }] = seen as [(typeof seen)[number]];
    // Not made yet: the context did not read it.
    expect(typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(info), 'signal')?.get).toBe('function');
    client.abort();
    await answered;
    await vi.waitFor(() => expect(res.closed).toBe(true));
    expect(info.signal).toBeInstanceOf(AbortSignal);
    expect(info.signal.aborted).toBe(true);
    release();
  });
});

describe('Express body-parser internals', () => {
  it('skips parsing a request whose body was set with the _body flag, whatever it carries', async () => {
    const base = await serve(
      (req, _res, next) => {
        setParsedBody(req, { from: 'upload' });
        next();
      },
      express.json(),
      (req, res) => {
        res.json({ body: req.body });
      },
    );
    const response = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ body: { from: 'upload' } });
  });
});
