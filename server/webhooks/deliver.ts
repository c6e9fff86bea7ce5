import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPrivateAddress, type NetworkPolicy } from '../http/network-guard.js';
import { signPayload } from './sign.js';

export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'Roomstage-Webhooks/1';

export interface OutgoingWebhook {
  url: string;
  secret: string;
  eventId: string;
  event: string;
  /** The stored envelope: these exact bytes are signed and sent on every attempt. */
  payload: string;
}

export interface AttemptResult {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliverOptions extends NetworkPolicy {
  timeoutMs?: number;
  now?: () => number;
}

// Keep-alive pools shared by every delivery of the process: a busy receiver is reached over warm connections.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }),
};

export function webhookHeaders(message: OutgoingWebhook, timestampSeconds: number): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(message.payload)),
    'X-Webhook-Signature': signPayload(message.secret, message.payload),
    'X-Webhook-Id': message.eventId,
    'X-Webhook-Event': message.event,
    'X-Webhook-Timestamp': String(timestampSeconds),
    'User-Agent': USER_AGENT,
  };
}

/**
 * One signed POST. Any 2xx within the timeout is delivered; redirects are not followed (a 3xx is a failure);
 * a private address is refused at connect time unless the operator allows private networks.
 */
export function deliverOnce(message: OutgoingWebhook, options: DeliverOptions): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const started = performance.now();
  const finish = (statusCode: number | null, error: string | null): AttemptResult => ({
    delivered: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error: error ?? (statusCode !== null && (statusCode < 200 || statusCode >= 300) ? `HTTP ${statusCode}` : null),
    durationMs: Math.round(performance.now() - started),
  });

  let url: URL;
  try {
    url = new URL(message.url);
  } catch {
    return Promise.resolve(finish(null, 'The webhook url is not valid.'));
  }
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return Promise.resolve(finish(null, 'The webhook url must be http or https.'));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivateNetwork && isIP(host) && isPrivateAddress(host)) {
    return Promise.resolve(finish(null, `Refused: ${host} is a private or loopback address.`));
  }

  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent,
      lookup: guardedLookup(options),
      headers: webhookHeaders(message, Math.floor((options.now?.() ?? Date.now()) / 1000)),
    });
    const timer = setTimeout(() => {
      settle(finish(null, `Timed out after ${timeoutMs} ms`));
      request.destroy();
    }, timeoutMs);
    request.on('response', (response) => {
      // The body is not needed; draining it lets the keep-alive socket be reused.
      response.resume();
      settle(finish(response.statusCode ?? null, null));
    });
    request.on('error', (error: NodeJS.ErrnoException) => settle(finish(null, describeNetworkError(error))));
    request.end(message.payload);
  });
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  const text = error.code ? `${error.code}: ${error.message}` : error.message;
  return text.slice(0, 480);
}
