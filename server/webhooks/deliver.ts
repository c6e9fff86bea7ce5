import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPrivateAddress, type NetworkPolicy } from '../http/network-guard.js';
import { signingSecrets, signPayload, standardSignature, type WebhookSecrets } from './sign.js';

export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'Roomstage-Webhooks/1';

export interface OutgoingWebhook {
  url: string;
  /** Read when the attempt is claimed: signatures are made at send time, so a rotation applies to retries too. */
  secrets: WebhookSecrets;
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
  /** The receiver's Retry-After on a 429 or 503, in ms (null when absent or unreadable). */
  retryAfterMs?: number | null;
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

/** Our headers and the Standard Webhooks ones; after a rotation `webhook-signature` lists both secrets' signatures. */
export function webhookHeaders(message: OutgoingWebhook, nowMs: number): Record<string, string> {
  const timestampSeconds = Math.floor(nowMs / 1000);
  const secrets = signingSecrets(message.secrets, nowMs);
  return {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(message.payload)),
    'X-Webhook-Signature': signPayload(secrets[0]!, message.payload),
    'X-Webhook-Id': message.eventId,
    'X-Webhook-Event': message.event,
    'X-Webhook-Timestamp': String(timestampSeconds),
    'webhook-id': message.eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => standardSignature(secret, message.eventId, timestampSeconds, message.payload)).join(' '),
    'User-Agent': USER_AGENT,
  };
}

const RETRY_AFTER_STATUSES = new Set([429, 503]);

/** Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form starts with the day name; Date.parse alone would read "-5" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return null;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/**
 * One signed POST. Any 2xx within the timeout is delivered; redirects are not followed (a 3xx is a failure);
 * a private address is refused at connect time unless the operator allows private networks.
 */
export function deliverOnce(message: OutgoingWebhook, options: DeliverOptions): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const started = performance.now();
  const now = options.now ?? Date.now;
  const finish = (statusCode: number | null, error: string | null, retryAfterMs: number | null = null): AttemptResult => ({
    delivered: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error: error ?? (statusCode !== null && (statusCode < 200 || statusCode >= 300) ? `HTTP ${statusCode}` : null),
    durationMs: Math.round(performance.now() - started),
    retryAfterMs,
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
      headers: webhookHeaders(message, now()),
    });
    const timer = setTimeout(() => {
      settle(finish(null, `Timed out after ${timeoutMs} ms`));
      request.destroy();
    }, timeoutMs);
    request.on('response', (response) => {
      // The body is not needed; draining it lets the keep-alive socket be reused.
      response.resume();
      const status = response.statusCode ?? null;
      const retryAfterMs = status !== null && RETRY_AFTER_STATUSES.has(status) ? parseRetryAfter(response.headers['retry-after'], now()) : null;
      settle(finish(status, null, retryAfterMs));
    });
    request.on('error', (error: NodeJS.ErrnoException) => settle(finish(null, describeNetworkError(error))));
    request.end(message.payload);
  });
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  const text = error.code ? `${error.code}: ${error.message}` : error.message;
  return text.slice(0, 480);
}
