import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type FakeAnswer, FakeProvider } from './fake-provider.js';

interface FakePrediction {
  id: string;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  model: string;
  version: string;
  input: Record<string, unknown>;
  output: string[] | null;
  error: string | null;
  urls: { get: string; cancel: string };
  created_at: string;
  done: Promise<void>;
  picture: Promise<Buffer>;
}

/**
 * Replicate's predictions API as the official client uses it: create (on a model or a version, honouring
 * `Prefer: wait=n`), get, cancel, and the output files. A prediction takes `delayMs`; with `refuse` it fails the
 * way safety checkers fail one.
 */
export class FakeReplicate extends FakeProvider {
  readonly predictions = new Map<string, FakePrediction>();
  readonly preferWait: Array<string | undefined> = [];

  /** With `declutter`, REPLICATE_DECLUTTER_MODEL names a second model (roomstage/declutterer). */
  env(options: { declutter?: boolean } = {}): Record<string, string> {
    return {
      ENGINE: 'replicate',
      REPLICATE_API_TOKEN: 'r8_fake',
      REPLICATE_MODEL: 'roomstage/stager',
      ...(options.declutter !== false && { REPLICATE_DECLUTTER_MODEL: 'roomstage/declutterer' }),
      REPLICATE_BASE_URL: `${this.url}/v1`,
    };
  }

  protected async route(method: string, url: URL, body: Buffer, req: IncomingMessage): Promise<FakeAnswer> {
    // Output files are served without credentials, as Replicate's file host serves them.
    if (method === 'GET' && url.pathname.startsWith('/files/')) {
      const prediction = this.predictions.get(url.pathname.slice('/files/'.length).replace(/\.png$/, ''));
      if (!prediction) return { status: 404, body: { detail: 'Not found.' } };
      return { status: 200, body: await prediction.picture };
    }
    if (req.headers.authorization !== 'Bearer r8_fake') return { status: 401, body: { detail: 'Invalid token.' } };
    const createPath =
      method === 'POST' ? url.pathname.match(/^\/v1\/(?:models\/([^/]+\/[^/]+)\/)?predictions$/) : null;
    if (createPath) {
      const request = JSON.parse(body.toString('utf8')) as { input: Record<string, unknown>; version?: string };
      const prediction = this.create(createPath[1] ?? '', request.version ?? '', request.input);
      const prefer = req.headers.prefer as string | undefined;
      this.preferWait.push(prefer);
      const waitSeconds = prefer?.startsWith('wait') ? Number(prefer.split('=')[1] ?? 60) : 0;
      if (waitSeconds > 0)
        await Promise.race([prediction.done, new Promise((resolve) => setTimeout(resolve, waitSeconds * 1000))]);
      return { status: 201, body: this.view(prediction) };
    }
    const predictionPath = method === 'GET' ? url.pathname.match(/^\/v1\/predictions\/([^/]+)$/) : null;
    if (predictionPath) {
      const prediction = this.predictions.get(predictionPath[1]!);
      return prediction
        ? { status: 200, body: this.view(prediction) }
        : { status: 404, body: { detail: 'Not found.' } };
    }
    const cancelPath = method === 'POST' ? url.pathname.match(/^\/v1\/predictions\/([^/]+)\/cancel$/) : null;
    if (cancelPath) {
      const prediction = this.predictions.get(cancelPath[1]!);
      if (!prediction) return { status: 404, body: { detail: 'Not found.' } };
      if (prediction.status === 'starting' || prediction.status === 'processing') prediction.status = 'canceled';
      return { status: 200, body: this.view(prediction) };
    }
    return { status: 404, body: { detail: 'Not found.' } };
  }

  private create(model: string, version: string, input: Record<string, unknown>): FakePrediction {
    const id = randomBytes(10).toString('hex');
    this.commissions.push({
      prompt: String(input.prompt),
      negativePrompt: String(input.negative_prompt),
      seed: input.seed as number,
      model,
    });
    const prediction: FakePrediction = {
      id,
      status: 'starting',
      model,
      version,
      input,
      output: null,
      error: null,
      urls: { get: `${this.url}/v1/predictions/${id}`, cancel: `${this.url}/v1/predictions/${id}/cancel` },
      created_at: new Date().toISOString(),
      done: Promise.resolve(),
      picture: this.pictureFor(String(input.prompt), imageOf(input.image)),
    };
    prediction.picture.catch(() => {});
    const refuse = this.refuse;
    prediction.done = this.draw().then(() => {
      if (prediction.status === 'canceled') return;
      if (refuse)
        Object.assign(prediction, {
          status: 'failed',
          error: 'NSFW content detected. Try running it again, or try a different prompt.',
        });
      else Object.assign(prediction, { status: 'succeeded', output: [`${this.url}/files/${id}.png`] });
    });
    prediction.status = 'processing';
    this.predictions.set(id, prediction);
    return prediction;
  }

  private view(prediction: FakePrediction) {
    const { done: _done, picture: _picture, ...visible } = prediction;
    return { ...visible, source: 'api', data_removed: false };
  }
}

/** The photo a prediction was sent (Roomstage sends a data: URL in `image`). */
function imageOf(value: unknown): Buffer {
  const match = typeof value === 'string' ? /^data:[^,]*;base64,(.*)$/s.exec(value) : null;
  if (!match) throw new Error('the fake Replicate expects the photo as a data: URL in input.image');
  return Buffer.from(match[1]!, 'base64');
}
