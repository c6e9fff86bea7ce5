import { EventEmitter } from 'node:events';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher, type FormData, request } from 'undici';
import { guardedLookup, isPrivateAddress, type NetworkPolicy } from './network-guard.js';

/**
 * The one HTTP client for requests to addresses customers choose (image_url downloads, webhook deliveries), on
 * undici. The guard sits in the connector, so the address checked is the address connected to: an IP literal is
 * refused before connecting, a name is refused when its DNS answer (at connect time, not before) is private. A
 * DNS answer that changes between a check and the request (rebinding) therefore never reaches our network.
 */

/** Raised (as the request's error) when the target is a private or loopback address and the operator forbids them. */
export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
  constructor(readonly host: string) {
    super(`Refused: ${host} is a private or loopback address.`);
    this.name = 'PrivateAddressError';
  }
}

const CONNECT_TIMEOUT_MS = 10_000;

function guardedConnector(policy: NetworkPolicy): buildConnector.connector {
  const lookup = guardedLookup(policy);
  const connect = buildConnector({ timeout: CONNECT_TIMEOUT_MS, ...(lookup ? { lookup } : {}) });
  if (policy.allowPrivateNetwork) return connect;
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    // An IP literal is never looked up, so the connector checks it itself.
    if (isIP(host) && isPrivateAddress(host)) return callback(new PrivateAddressError(host), null);
    connect(options, (error, socket) => {
      if (error && (error as NodeJS.ErrnoException).code === 'EPRIVATEADDRESS')
        return callback(new PrivateAddressError(options.hostname), null);
      return error || !socket ? callback(error ?? new Error('No socket'), null) : callback(null, socket);
    });
  };
}

// One keep-alive pool per policy for the whole process: a busy webhook receiver is reached over warm connections.
// Idle connections are dropped after 500 ms: warm through a burst of deliveries, never picked up long after the
// receiver may have closed its end (a POST on such a connection is reset, and a POST is not retried).
const dispatchers = new Map<boolean, Agent>();

function outboundDispatcher(policy: NetworkPolicy): Dispatcher {
  let agent = dispatchers.get(policy.allowPrivateNetwork);
  if (!agent) {
    agent = new Agent({
      connect: guardedConnector(policy),
      connections: 256,
      keepAliveTimeout: 500,
      keepAliveMaxTimeout: 500,
    });
    dispatchers.set(policy.allowPrivateNetwork, agent);
  }
  return agent;
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** An (undici) FormData body is sent as multipart/form-data with its boundary (file uploads to an engine). */
  body?: string | Buffer | FormData;
  /** Ends the request (connecting, waiting or reading the body) when it fires: the caller's deadline. */
  signal: AbortSignal | RequestDeadline['signal'];
}

/** A timer that ends one request, as the EventEmitter that undici takes for `signal` as readily as an AbortSignal. */
export interface RequestDeadline {
  /** Emits `abort` when the time is up. */
  readonly signal: EventEmitter;
  readonly expired: boolean;
  /** The request has ended: the timer goes. */
  clear(): void;
}

/**
 * For requests made by the thousand a second (webhook deliveries): an AbortController and the EventTarget listeners
 * undici adds and removes on it cost a tenth or more of such a request's CPU in this client, an EventEmitter next to
 * nothing (bench:webhook-costs).
 */
export function requestDeadline(ms: number): RequestDeadline {
  const signal = new EventEmitter();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    signal.emit('abort');
  }, ms);
  return {
    signal,
    get expired() {
      return expired;
    },
    clear: () => clearTimeout(timer),
  };
}

export type OutboundResponse = Dispatcher.ResponseData;

/** One request, redirects not followed (callers decide, and check each hop). */
export function sendOutbound(url: URL, policy: NetworkPolicy, options: OutboundRequest): Promise<OutboundResponse> {
  return request(url, {
    dispatcher: outboundDispatcher(policy),
    method: options.method,
    headers: options.headers,
    body: options.body,
    signal: options.signal,
    maxRedirections: 0,
  });
}

export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The response body is larger than ${maxBytes} bytes.`);
    this.name = 'BodyTooLargeError';
  }
}

/** Drops a body we will not read (and its connection); the abort it causes is expected, not an error to report. */
export function discardBody(response: OutboundResponse) {
  response.body.on('error', () => {});
  response.body.destroy();
}

/** Reads a response body, refusing (and dropping the connection) as soon as it passes `maxBytes`. */
export async function readLimited(response: OutboundResponse, maxBytes: number): Promise<Buffer> {
  if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
    discardBody(response);
    throw new BodyTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of response.body) {
    received += (chunk as Buffer).length;
    if (received > maxBytes) {
      discardBody(response);
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A short text for logs and delivery records: the network error's code and message. */
export function describeOutboundError(error: unknown): string {
  const cause = (error as { cause?: NodeJS.ErrnoException })?.cause;
  const primary = error as NodeJS.ErrnoException;
  const own = typeof primary?.code === 'string' ? primary.code : undefined;
  const code = own && own !== 'UND_ERR_SOCKET' ? own : (cause?.code ?? own);
  const message = primary?.message ?? String(error);
  return (code ? `${code}: ${message}` : message).slice(0, 480);
}
