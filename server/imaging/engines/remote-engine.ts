/**
 * What every remote engine shares. A provider only says how to turn a photo and a prompt into a picture; this file
 * runs that under the process's ENGINE_CONCURRENCY slots and one ENGINE_TIMEOUT deadline per image (retries
 * included), retries 429, 5xx and network failures with backoff (a provider's Retry-After wins), and turns whatever
 * still fails into EngineUnavailable. Inspecting, enhancing and placing products stay on the built-in engine.
 */
import {
  type OutboundRequest,
  type OutboundResponse,
  discardBody,
  readLimited,
  sendOutbound,
} from '../../outbound/client.js';
import type { NetworkPolicy } from '../../outbound/network-guard.js';
import { AppError } from '../../errors.js';
import { log } from '../../observability/logger.js';
import type {
  DeclutterOptions,
  EngineCapabilities,
  EngineImage,
  ImageEngine,
  ImageInfo,
  PlaceableProduct,
  Placement,
  ProviderSlots,
  Scene,
  StageOptions,
} from '../engine.js';
import { Semaphore } from '../semaphore.js';
import { DEFAULT_RETRY_AFTER_SECONDS, EngineUnavailable, engineFailureIn } from './failures.js';
import { fitOutput, type ProviderInput, providerInput } from './fit-output.js';
import { declutterPrompt, type StagingPrompt, stagingPrompt } from './prompts.js';

export type EngineName = 'replicate' | 'openai' | 'comfyui';

/**
 * One provider's protocol: the staged picture's bytes in any size and format sharp reads. `declutter` is there only
 * when the provider is set up for it (a declutter model or workflow, or an edit prompt that empties the room).
 */
export interface StagingProvider {
  readonly name: EngineName;
  stage(call: RemoteCall, source: ProviderInput, request: StagingPrompt): Promise<Buffer>;
  declutter?(call: RemoteCall, source: ProviderInput, request: StagingPrompt): Promise<Buffer>;
}

/** Each variation is one more call to the provider with its own seed. */
const MAX_REMOTE_VARIATIONS = 4;

const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 8_000;

function isRetryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Retry-After as seconds or an HTTP date, in milliseconds; null when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

interface Attempt<R> {
  value: R;
  status: number;
  retryAfter: string | null;
  discard(): void;
}

/**
 * One image's dealings with the provider, all bound to its deadline: `fetch` for the official clients (given as
 * their `fetch` option) and `send` for requests through the outbound client. Both return any answer that is not
 * worth retrying and throw EngineUnavailable once retrying would pass the deadline; after that every request fails
 * at once, so a client's own retry loop cannot go on calling the provider.
 */
export class RemoteCall {
  private givenUp: EngineUnavailable | null = null;

  constructor(
    readonly signal: AbortSignal,
    private readonly deadline: number,
    private readonly network: NetworkPolicy,
  ) {}

  remainingMs(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  readonly fetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    this.retrying(async () => {
      const signal = init.signal ? AbortSignal.any([init.signal, this.signal]) : this.signal;
      const response = await fetch(input, { ...init, signal });
      return {
        value: response,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        discard: () => void response.body?.cancel().catch(() => {}),
      };
    });

  send(url: URL, options: Omit<OutboundRequest, 'signal'>): Promise<OutboundResponse> {
    return this.retrying(async () => {
      const response = await sendOutbound(url, this.network, { ...options, signal: this.signal });
      const header = response.headers['retry-after'];
      return {
        value: response,
        status: response.statusCode,
        retryAfter: Array.isArray(header) ? (header[0] ?? null) : (header ?? null),
        discard: () => discardBody(response),
      };
    });
  }

  /** Waits `ms`, or fails with the deadline's error when the deadline comes first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) return reject(this.signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(this.signal.reason);
      };
      const timer = setTimeout(() => {
        this.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async retrying<R>(attempt: () => Promise<Attempt<R>>): Promise<R> {
    for (let tries = 0; ; tries++) {
      if (this.givenUp) throw this.givenUp;
      let outcome: Attempt<R> | null = null;
      let failure: unknown = null;
      try {
        outcome = await attempt();
      } catch (error) {
        if (this.signal.aborted) throw this.signal.reason;
        failure = error;
      }
      if (outcome && !isRetryable(outcome.status)) return outcome.value;
      outcome?.discard();
      const hinted = outcome ? retryAfterMs(outcome.retryAfter) : null;
      const waitMs = hinted ?? Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** tries);
      if (waitMs >= this.remainingMs()) {
        const what = outcome ? `answered ${outcome.status}` : 'could not be reached';
        log.warn({ err: failure, status: outcome?.status }, `staging engine ${what}; giving up within ENGINE_TIMEOUT`);
        this.givenUp = new EngineUnavailable(
          (hinted ?? DEFAULT_RETRY_AFTER_SECONDS * 1000) / 1000,
          `The staging engine ${what} after retries; your credits were refunded and nothing was stored.`,
        );
        throw this.givenUp;
      }
      await this.sleep(waitMs);
    }
  }
}

/** Larger pictures than this from a provider are refused (no model answers with more than a few megabytes). */
const MAX_PICTURE_BYTES = 64 * 1024 * 1024;

/** The bytes of a picture a provider answered with as a URL: fetched (under the deadline) or a data: URL decoded. */
export async function pictureAt(call: RemoteCall, location: string): Promise<Buffer> {
  const inline = /^data:[^,]*;base64,/.exec(location);
  if (inline) return Buffer.from(location.slice(inline[0].length), 'base64');
  const response = await call.send(new URL(location), { method: 'GET', headers: { accept: 'image/*' } });
  if (response.statusCode !== 200) {
    discardBody(response);
    throw new Error(`the engine's picture ${location} answered ${response.statusCode}`);
  }
  return readLimited(response, MAX_PICTURE_BYTES);
}

export interface RemoteCallOptions {
  /** ENGINE_TIMEOUT: one image's whole dealings with the provider, retries included. */
  timeoutMs: number;
  /** ENGINE_CONCURRENCY: images this process has at the provider at once; more wait for a slot. */
  concurrency: number;
  /** Which addresses `send` may reach (an operator's own ComfyUI is usually on a private network). */
  network: NetworkPolicy;
}

/**
 * Runs one image's provider work in a concurrency slot, under its deadline. The slot is held only while the
 * provider works (the call and the download of its picture): preparing the input and fitting the output back are
 * the caller's, so the next image goes to the provider while this one is finished here.
 */
export class RemoteCalls {
  readonly slots: Semaphore;

  constructor(private readonly options: RemoteCallOptions) {
    this.slots = new Semaphore(options.concurrency);
  }

  run<T>(work: (call: RemoteCall) => Promise<T>): Promise<T> {
    return this.slots.run(async () => {
      const { timeoutMs } = this.options;
      const controller = new AbortController();
      const timedOut = new EngineUnavailable(
        DEFAULT_RETRY_AFTER_SECONDS,
        `The staging engine did not finish within ${
          Math.round(timeoutMs / 100) / 10
        } s; your credits were refunded and nothing was stored.`,
      );
      const timer = setTimeout(() => controller.abort(timedOut), timeoutMs);
      // The deadline ends the work even where a client does not pass the signal on.
      const deadline = new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
      );
      deadline.catch(() => {});
      try {
        return await Promise.race([
          work(new RemoteCall(controller.signal, Date.now() + timeoutMs, this.options.network)),
          deadline,
        ]);
      } catch (error) {
        throw asEngineFailure(error);
      } finally {
        clearTimeout(timer);
        // Stops what is still running for this image (a poll, a download) once its answer is settled.
        controller.abort(timedOut);
      }
    });
  }
}

/** A provider's own error (a client's exception, a malformed answer) is the provider's failure: 503, logged. */
function asEngineFailure(error: unknown): AppError {
  const failure = engineFailureIn(error);
  if (failure) return failure;
  if (error instanceof AppError) return error;
  log.warn({ err: error }, 'staging engine failed');
  return new EngineUnavailable(
    DEFAULT_RETRY_AFTER_SECONDS,
    'The staging engine failed; your credits were refunded and nothing was stored.',
  );
}

/** An ImageEngine whose staging (and decluttering) is done by a provider; the rest is the built-in engine's. */
export class RemoteEngine implements ImageEngine {
  readonly capabilities: EngineCapabilities;
  readonly providerSlots: ProviderSlots;

  constructor(
    readonly provider: StagingProvider,
    private readonly builtin: ImageEngine,
    private readonly calls: RemoteCalls,
  ) {
    this.providerSlots = calls.slots;
    this.capabilities = {
      engine: provider.name,
      maxVariations: MAX_REMOTE_VARIATIONS,
      declutter: provider.declutter !== undefined,
      label: true,
    };
  }

  inspect(input: Buffer): Promise<ImageInfo> {
    return this.builtin.inspect(input);
  }

  async stage(input: Buffer, options: StageOptions): Promise<EngineImage> {
    const request = stagingPrompt(options.style, options.roomType, options.seed);
    const [size, source] = await Promise.all([this.builtin.inspect(input), providerInput(input)]);
    const produced = await this.calls.run((call) => this.provider.stage(call, source, request));
    return fitOutput(produced, size, { label: options.label, qrUrl: options.qrUrl });
  }

  async declutter(input: Buffer, options: DeclutterOptions): Promise<EngineImage> {
    const { provider } = this;
    const declutter = provider.declutter?.bind(provider);
    if (!declutter) {
      throw new AppError('unsupported_option', `The ${provider.name} engine is not set up to declutter.`, {
        option: 'declutter',
      });
    }
    const request = declutterPrompt(options.seed);
    const [size, source] = await Promise.all([this.builtin.inspect(input), providerInput(input)]);
    const produced = await this.calls.run((call) => declutter(call, source, request));
    return fitOutput(produced, size, { label: options.label, qrUrl: options.qrUrl });
  }

  preview(input: Buffer, maxEdge: number): Promise<EngineImage> {
    return this.builtin.preview(input, maxEdge);
  }

  enhance(input: Buffer): Promise<EngineImage> {
    return this.builtin.enhance(input);
  }

  placeProducts(
    input: Buffer,
    options: { products: PlaceableProduct[]; maxProducts: number; scene?: Scene },
  ): Promise<EngineImage & { placements: Placement[]; scene?: Scene }> {
    return this.builtin.placeProducts(input, options);
  }
}
