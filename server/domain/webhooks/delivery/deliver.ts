import { describeOutboundError, requestDeadline, sendOutbound } from '../../../outbound/client.js';
import type { NetworkPolicy } from '../../../outbound/network-guard.js';
import { signingSecrets, signPayload, standardSignature, type WebhookSecrets } from '../signing.js';

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

/** Our headers and the Standard Webhooks ones; after a rotation `webhook-signature` lists both secrets' signatures. */
function webhookHeaders(message: OutgoingWebhook, nowMs: number): Record<string, string> {
  const timestampSeconds = Math.floor(nowMs / 1000);
  const secrets = signingSecrets(message.secrets, nowMs);
  return {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(message.payload)),
    'X-Webhook-Signature': signPayload(secrets[0], message.payload),
    'X-Webhook-Id': message.eventId,
    'X-Webhook-Event': message.event,
    'X-Webhook-Timestamp': String(timestampSeconds),
    'webhook-id': message.eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets
      .map((secret) => standardSignature(secret, message.eventId, timestampSeconds, message.payload))
      .join(' '),
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
 * One signed POST through the outbound client (keep-alive pool, private addresses refused at connect time unless
 * the operator allows them). Any 2xx within the timeout is delivered; redirects are not followed (a 3xx is a failure).
 */
export async function deliverOnce(message: OutgoingWebhook, options: DeliverOptions): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const started = performance.now();
  const now = options.now ?? Date.now;
  const finish = (
    statusCode: number | null,
    error: string | null,
    retryAfterMs: number | null = null,
  ): AttemptResult => ({
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
    return finish(null, 'The webhook url is not valid.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return finish(null, 'The webhook url must be http or https.');

  const deadline = requestDeadline(timeoutMs);
  try {
    const response = await sendOutbound(url, options, {
      method: 'POST',
      headers: webhookHeaders(message, now()),
      body: message.payload,
      signal: deadline.signal,
    });
    const status = response.statusCode;
    const retryAfter = response.headers['retry-after'];
    const retryAfterMs =
      RETRY_AFTER_STATUSES.has(status) && typeof retryAfter === 'string' ? parseRetryAfter(retryAfter, now()) : null;
    // The body is not needed; draining it (a little) lets the keep-alive connection be reused.
    response.body.dump().catch(() => {});
    return finish(status, null, retryAfterMs);
  } catch (error) {
    return finish(null, deadline.expired ? `Timed out after ${timeoutMs} ms` : describeOutboundError(error));
  } finally {
    deadline.clear();
  }
}
