/**
 * ENGINE=replicate: a model on Replicate through the official client, its `baseUrl` at REPLICATE_BASE_URL. The
 * prediction is created with `Prefer: wait` (the answer often comes with it), then polled until it ends; a
 * prediction still running at the deadline is cancelled so it stops costing money.
 */
import Replicate, { type Prediction } from 'replicate';
import type { EngineConfig } from '../../env.js';
import { log } from '../../observability/logger.js';
import { EngineRejected } from './failures.js';
import { dataUrlOf, type ProviderInput } from './fit-output.js';
import { fillPlaceholders } from './placeholders.js';
import type { StagingPrompt } from './prompts.js';
import { pictureAt, type RemoteCall, type StagingProvider } from './remote-engine.js';

type ReplicateSettings = Extract<EngineConfig, { name: 'replicate' }>;

/** The Replicate input when REPLICATE_INPUT_TEMPLATE does not say otherwise. */
export const DEFAULT_REPLICATE_INPUT = {
  image: '{{image}}',
  prompt: '{{prompt}}',
  negative_prompt: '{{negative_prompt}}',
  seed: '{{seed}}',
};

const POLL_INTERVAL_MS = 500;
/** Replicate holds a `Prefer: wait` request open for at most a minute. */
const MAX_WAIT_SECONDS = 60;
const CANCEL_TIMEOUT_MS = 5_000;
const FINISHED = new Set(['succeeded', 'failed', 'canceled', 'aborted']);
/** How models' safety checkers word a refusal in a failed prediction's error. */
const REFUSAL = /nsfw|safety|sensitive|content polic|flagged|moderation/i;

/** `owner/name` runs the model's latest version; `owner/name:version` pins one. */
export function modelReference(model: string): { model: string } | { version: string } {
  const [name = model, version] = model.split(':');
  return version ? { version } : { model: name };
}

/** The first picture in a prediction's output: a URL, a list of URLs, or an object holding them. */
export function firstPicture(output: unknown): string | null {
  if (typeof output === 'string') return /^(https?:|data:)/.test(output) ? output : null;
  const items = Array.isArray(output) ? output : output && typeof output === 'object' ? Object.values(output) : [];
  for (const item of items) {
    const found = firstPicture(item);
    if (found) return found;
  }
  return null;
}

/** Staging runs REPLICATE_MODEL; decluttering runs REPLICATE_DECLUTTER_MODEL (with the same input), when set. */
export function replicateProvider(settings: ReplicateSettings): StagingProvider {
  const template = settings.inputTemplate ?? DEFAULT_REPLICATE_INPUT;
  const { declutterModel } = settings;
  const predict = async (
    model: string,
    call: RemoteCall,
    source: ProviderInput,
    request: StagingPrompt,
  ): Promise<Buffer> => {
    const client = new Replicate({
      auth: settings.apiToken,
      baseUrl: settings.baseUrl,
      fetch: call.fetch,
      useFileOutput: false,
    });
    const input = fillPlaceholders(template, {
      image: dataUrlOf(source),
      prompt: request.prompt,
      negative_prompt: request.negativePrompt,
      seed: request.seed,
    });
    let prediction: Prediction | null = null;
    call.signal.addEventListener('abort', () => {
      if (prediction && !FINISHED.has(prediction.status)) cancelQuietly(settings, prediction.id);
    });
    const wait = Math.max(1, Math.min(MAX_WAIT_SECONDS, Math.floor(call.remainingMs() / 1000) - 1));
    prediction = await client.predictions.create({ ...modelReference(model), input: input as object, wait });
    while (!FINISHED.has(prediction.status)) {
      await call.sleep(POLL_INTERVAL_MS);
      prediction = await client.predictions.get(prediction.id);
    }
    if (prediction.status !== 'succeeded') {
      const reason =
        typeof prediction.error === 'string' ? prediction.error : JSON.stringify(prediction.error ?? prediction.status);
      if (REFUSAL.test(reason))
        throw new EngineRejected(
          `The staging engine refused this image: ${reason.slice(0, 200)}. Your credits were refunded.`,
        );
      throw new Error(`prediction ${prediction.id} ${prediction.status}: ${reason.slice(0, 300)}`);
    }
    const location = firstPicture(prediction.output);
    if (!location) throw new Error(`prediction ${prediction.id} succeeded without a picture in its output`);
    return pictureAt(call, location);
  };
  return {
    name: 'replicate',
    stage: (call, source, request) => predict(settings.model, call, source, request),
    ...(declutterModel && {
      declutter: (call: RemoteCall, source: ProviderInput, request: StagingPrompt) =>
        predict(declutterModel, call, source, request),
    }),
  };
}

/** A prediction abandoned at the deadline is cancelled with a fresh client: the image's own signal has fired. */
function cancelQuietly(settings: ReplicateSettings, id: string): void {
  const client = new Replicate({ auth: settings.apiToken, baseUrl: settings.baseUrl });
  client.predictions.cancel(id, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) }).catch((error: unknown) => {
    log.warn({ err: error, prediction: id }, 'could not cancel an abandoned Replicate prediction');
  });
}
