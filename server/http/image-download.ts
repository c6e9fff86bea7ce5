import http from 'node:http';
import https from 'node:https';
import { AppError } from '../errors.js';
import { assertPublicUrl, guardedLookup, type NetworkPolicy } from './network-guard.js';

export interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
}

const MB = 1024 * 1024;

function refusedUrl(error: unknown): never {
  // The guard names the field `url`; here it is `image_url`.
  if (error instanceof AppError && error.code === 'invalid_request') {
    throw new AppError('invalid_request', error.message.replace(/^The url/, 'The image_url'), { details: [{ path: 'image_url', message: error.message.replace(/^The url/, 'The image_url') }] });
  }
  throw error;
}

function unreadable(message: string): AppError {
  return new AppError('invalid_image', message);
}

/**
 * Downloads an `image_url` (CONTRACT §5): http(s) only, public addresses only (checked before connecting and again
 * at connect time against DNS rebinding) unless the operator allows private ones, at most `maxBytes` (streamed and
 * aborted as soon as it is exceeded) within `timeoutMs` overall, following a few redirects that pass the same checks.
 */
export async function downloadImage(raw: string, policy: NetworkPolicy, limits: DownloadLimits): Promise<Buffer> {
  const deadline = Date.now() + limits.timeoutMs;
  let target = raw;
  for (let hop = 0; hop <= (limits.maxRedirects ?? 3); hop++) {
    const url = await assertPublicUrl(target, policy).catch(refusedUrl);
    const outcome = await fetchOnce(url, policy, limits.maxBytes, deadline - Date.now());
    if (outcome.kind === 'body') return outcome.body;
    target = new URL(outcome.location, url).toString();
  }
  throw unreadable('The image_url redirected too many times.');
}

type Outcome = { kind: 'body'; body: Buffer } | { kind: 'redirect'; location: string };

function fetchOnce(url: URL, policy: NetworkPolicy, maxBytes: number, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    if (timeoutMs <= 0) return reject(unreadable('The image_url did not answer in time.'));
    let settled = false;
    const settle = (error: Error | null, outcome?: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        request.destroy();
        reject(error);
      } else resolve(outcome!);
    };
    const request = (url.protocol === 'https:' ? https : http).get(url, {
      lookup: guardedLookup(policy),
      headers: { 'user-agent': 'Roomstage-ImageFetcher/1', accept: 'image/*' },
    });
    const timer = setTimeout(() => settle(unreadable(`The image_url did not deliver the image within ${Math.round(timeoutMs / 1000)} s.`)), timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPRIVATEADDRESS') {
        settle(new AppError('invalid_request', 'The image_url resolves to a private or loopback address, which is not allowed.', { details: [{ path: 'image_url', message: 'private or loopback address' }] }));
      } else settle(unreadable(`The image_url could not be downloaded (${error.code ?? error.message}).`));
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        return settle(null, { kind: 'redirect', location: response.headers.location });
      }
      if (status < 200 || status >= 300) {
        response.resume();
        return settle(unreadable(`The image_url answered HTTP ${status}, not an image.`));
      }
      const tooLarge = () => new AppError('payload_too_large', `The image at image_url is larger than ${Math.round(maxBytes / MB)} MB, the limit per image.`);
      if (Number(response.headers['content-length'] ?? 0) > maxBytes) return settle(tooLarge());
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) return settle(tooLarge());
        chunks.push(chunk);
      });
      response.on('end', () => settle(null, { kind: 'body', body: Buffer.concat(chunks) }));
      response.on('error', () => settle(unreadable('The image_url download was interrupted.')));
    });
  });
}
