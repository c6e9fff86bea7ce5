import { AppError } from '../errors.js';
import { BodyTooLargeError, type OutboundResponse, PrivateAddressError, readLimited, sendOutbound } from './client.js';
import { assertPublicUrl, type NetworkPolicy } from './network-guard.js';

export interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
}

const MB = 1024 * 1024;

function refusedUrl(error: unknown): never {
  // The guard names the field `url`; here it is `image_url`.
  if (error instanceof AppError && error.code === 'invalid_request') {
    throw new AppError('invalid_request', error.message.replace(/^The url/, 'The image_url'), {
      details: [{ path: 'image_url', message: error.message.replace(/^The url/, 'The image_url') }],
    });
  }
  throw error;
}

function unreadable(message: string): AppError {
  return new AppError('invalid_image', message);
}

/**
 * Downloads an `image_url`: http(s) only, public addresses only (checked before connecting for a clear
 * error, and again by the outbound client at connect time against DNS rebinding) unless the operator allows private
 * ones, at most `maxBytes` (streamed and aborted as soon as it is exceeded) within `timeoutMs` overall, following a
 * few redirects that pass the same checks.
 */
export async function downloadImage(raw: string, policy: NetworkPolicy, limits: DownloadLimits): Promise<Buffer> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limits.timeoutMs);
  try {
    let target = raw;
    for (let hop = 0; hop <= (limits.maxRedirects ?? 3); hop++) {
      const url = await assertPublicUrl(target, policy).catch(refusedUrl);
      const response = await sendOutbound(url, policy, {
        method: 'GET',
        headers: { 'user-agent': 'Roomstage-ImageFetcher/1', accept: 'image/*' },
        signal: deadline.signal,
      }).catch((error: unknown) => failed(error, deadline.signal, limits));
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
        await response.body.dump();
        target = new URL(location, url).toString();
        continue;
      }
      return await imageBody(response, limits).catch((error: unknown) => failed(error, deadline.signal, limits));
    }
    throw unreadable('The image_url redirected too many times.');
  } finally {
    clearTimeout(timer);
  }
}

async function imageBody(response: OutboundResponse, limits: DownloadLimits): Promise<Buffer> {
  if (response.statusCode < 200 || response.statusCode >= 300) {
    await response.body.dump();
    throw unreadable(`The image_url answered HTTP ${response.statusCode}, not an image.`);
  }
  return readLimited(response, limits.maxBytes);
}

/** Every way a download can fail, as the JSON error the client sees. */
function failed(error: unknown, deadline: AbortSignal, limits: DownloadLimits): never {
  if (error instanceof AppError) throw error;
  if (error instanceof PrivateAddressError) {
    throw new AppError(
      'invalid_request',
      'The image_url resolves to a private or loopback address, which is not allowed.',
      { details: [{ path: 'image_url', message: 'private or loopback address' }] },
    );
  }
  if (error instanceof BodyTooLargeError)
    throw new AppError(
      'payload_too_large',
      `The image at image_url is larger than ${Math.round(limits.maxBytes / MB)} MB, the limit per image.`,
    );
  if (deadline.aborted)
    throw unreadable(`The image_url did not deliver the image within ${Math.round(limits.timeoutMs / 1000)} s.`);
  const code = (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message;
  throw unreadable(`The image_url could not be downloaded (${code}).`);
}
