import type { Request, Response } from 'express';
import { sessionCookieHeader } from '../auth/session-cookie.js';
import { toErrorResponse } from '../errors.js';
import { DirectResponse } from '../response-control.js';
import { createCaller } from '../root.js';
import type { Services } from '../services.js';
import type { Context } from '../trpc/index.js';
import { cspNonceOf } from './security-headers.js';

/** What a loader's refused call becomes: a response Remix renders as the route's error page, with its status. */
const PAGE_STATUSES = new Set([403, 404, 429]);

/** The JSON error view of a refused call (app/load-context.ts names it for the routes). */
type Described = {
  status: number;
  error: string;
  code: string;
  message: string;
  details?: { path: string; message: string }[];
  headers: Record<string, string>;
} & Record<string, unknown>;

/** A refusal thrown as a Response, keeping the JSON error view for actions that catch it and show it in a form. */
class RefusalResponse extends Response {
  constructor(readonly described: Described) {
    const { headers, ...body } = described;
    // The page of a limit says when to retry: the Retry-After seconds, in the body too.
    const retryAfter = headers['Retry-After'] ? Number(headers['Retry-After']) : undefined;
    super(JSON.stringify({ ...body, retry_after: retryAfter }), {
      status: described.status,
      headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    });
  }
}

function describeError(error: unknown): Described {
  if (error instanceof RefusalResponse) return error.described;
  const { status, body, headers } = toErrorResponse(error);
  return { status, ...body, headers } as Described;
}

/**
 * The caller's procedures throw a 403, 404 or 429 as a Response: whatever a loader does not catch itself then
 * renders as the error page of that status (a limit's page says when to retry, with Retry-After), never as a 500.
 * Actions that catch it still read it through `describeError`.
 */
export function refusalsAsResponses<T extends object>(target: T): T {
  return new Proxy(target, {
    get: (object, property) => {
      const value = Reflect.get(object, property);
      return typeof value === 'function' || (typeof value === 'object' && value !== null)
        ? refusalsAsResponses(value as object)
        : value;
    },
    apply: async (fn, thisArg, args) => {
      try {
        return await Reflect.apply(fn as (...a: unknown[]) => unknown, thisArg, args);
      } catch (error) {
        const described = describeError(error);
        if (PAGE_STATUSES.has(described.status)) throw new RefusalResponse(described);
        throw error;
      }
    },
  });
}

/**
 * What every loader and action of one dashboard page request gets (app/load-context.ts). Its calls share one
 * context marked as the dashboard's: the session is verified once for the whole request and spends no API budget.
 */
export function dashboardLoadContext(
  services: Services,
  createContext: (input: { req: Request; response: Context['response'] }) => Context,
) {
  return (req: Request, res: Response) => {
    const context = createContext({ req, response: new DirectResponse(res) });
    context.dashboard = {};
    return {
      trpc: refusalsAsResponses(createCaller(context)),
      sessionCookie: (token: string) => sessionCookieHeader(services.auth, token, { secure: context.secureTransport }),
      blankSessionCookie: () => sessionCookieHeader(services.auth, null, { secure: context.secureTransport }),
      cspNonce: cspNonceOf(res),
      describeError,
    };
  };
}
