import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { loadConfig } from '../../../../server/env.js';
import { createEngine } from '../../../../server/imaging/engines/index.js';
import { fitOutput, providerInput } from '../../../../server/imaging/engines/fit-output.js';
import { RemoteCalls } from '../../../../server/imaging/engines/remote-engine.js';
import { FakeComfyUI } from '../../../helpers/fake-comfyui.js';
import { FakeOpenAI } from '../../../helpers/fake-openai.js';
import { type FakeProvider, fakePicture } from '../../../fixtures/fake-provider.js';
import { FakeReplicate } from '../../../fixtures/fake-replicate.js';
import { roomJpeg } from '../../../fixtures/images.js';

function engineFor(fake: FakeProvider, env: Record<string, string> = {}) {
  return createEngine(loadConfig({ ...fake.env(), ALLOW_PRIVATE_NETWORK: 'true', LOG_LEVEL: 'silent', ...env }));
}

const STAGE = { style: 'industrial', roomType: 'office', seed: 1234 } as const;

describe('Replicate engine', () => {
  const fake = new FakeReplicate();
  beforeAll(() => fake.start());
  afterEach(() => fake.reset());
  afterAll(() => fake.stop());

  it('creates the prediction with Prefer: wait and the input as data URL, prompts and an integer seed', async () => {
    const output = await engineFor(fake).stage(await roomJpeg(500, 300), STAGE);
    expect(output).toMatchObject({ width: 500, height: 300, contentType: 'image/jpeg' });
    expect(fake.calls[0]).toEqual({ method: 'POST', path: '/v1/models/roomstage/stager/predictions' });
    expect(fake.preferWait.at(-1)).toMatch(/^wait=\d+$/);
    const [prediction] = [...fake.predictions.values()].slice(-1);
    expect(prediction!.input).toMatchObject({ image: expect.stringMatching(/^data:image\/jpeg;base64,/), seed: 1234 });
    expect(fake.commissions.at(-1)!.prompt).toMatch(/office.*industrial/);
  });

  it('polls a prediction that outlasts the wait, on a pinned version', async () => {
    fake.delayMs = 1_600;
    const engine = engineFor(fake, { REPLICATE_MODEL: 'roomstage/stager:abc123', ENGINE_TIMEOUT: '2500ms' });
    await engine.stage(await roomJpeg(300, 300), STAGE);
    expect(fake.calls.some((call) => call.method === 'POST' && call.path === '/v1/predictions')).toBe(true);
    expect(fake.calls.some((call) => call.method === 'GET' && call.path.startsWith('/v1/predictions/'))).toBe(true);
  });

  it('cancels a prediction it abandons at the deadline', async () => {
    fake.delayMs = 5_000;
    const engine = engineFor(fake, { ENGINE_TIMEOUT: '1500ms' });
    await expect(engine.stage(await roomJpeg(300, 300), STAGE)).rejects.toMatchObject({ code: 'engine_unavailable' });
    await expect.poll(() => fake.calls.some((call) => call.path.endsWith('/cancel'))).toBe(true);
  });

  it('retries 5xx answers with backoff', async () => {
    fake.failNext.push({ status: 503, body: {} }, { status: 502, body: {} });
    await expect(engineFor(fake).stage(await roomJpeg(300, 300), STAGE)).resolves.toMatchObject({ width: 300 });
  });
});

describe('OpenAI engine', () => {
  const fake = new FakeOpenAI();
  beforeAll(() => fake.start());
  afterEach(() => fake.reset());
  afterAll(() => fake.stop());

  it('sends the photo as multipart in the gpt-image size closest to its shape, and reads b64_json', async () => {
    const output = await engineFor(fake).stage(await roomJpeg(800, 450), STAGE);
    expect(output).toMatchObject({ width: 800, height: 450 });
    expect(fake.edits.at(-1)).toEqual({ model: 'gpt-image-1', size: '1536x1024', imageWidth: 800, imageHeight: 450 });
  });

  it('turns a 400 moderation refusal into engine_rejected without retrying', async () => {
    fake.refuse = true;
    const before = fake.calls.length;
    await expect(engineFor(fake).stage(await roomJpeg(300, 300), STAGE)).rejects.toMatchObject({
      code: 'engine_rejected',
    });
    expect(fake.calls.length - before).toBe(1);
  });

  it('gives up with the provider Retry-After when the wait would pass the deadline', async () => {
    fake.failNext.push({ status: 429, headers: { 'retry-after': '90' }, body: { error: { message: 'Rate limit' } } });
    const started = Date.now();
    const failure = engineFor(fake, { ENGINE_TIMEOUT: '5s' }).stage(await roomJpeg(300, 300), STAGE);
    await expect(failure).rejects.toMatchObject({ code: 'engine_unavailable', headers: { 'Retry-After': '90' } });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('ComfyUI engine', () => {
  const fake = new FakeComfyUI();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());

  it('uploads the photo, queues the filled workflow, polls its history and views the output', async () => {
    fake.delayMs = 700;
    const output = await engineFor(fake).stage(await roomJpeg(300, 600), STAGE);
    expect(output).toMatchObject({ width: 300, height: 600 });
    const [queued] = [...fake.prompts.values()];
    const nodes = Object.values(queued!.workflow);
    expect(fake.uploads.has(nodes.find((node) => node.inputs.image !== undefined)!.inputs.image as string)).toBe(true);
    expect(nodes.find((node) => node.inputs.seed !== undefined)!.inputs.seed).toBe(1234);
    expect(fake.calls.filter((call) => call.path.startsWith('/history/')).length).toBeGreaterThan(1);
    expect(fake.calls.at(-1)).toEqual({ method: 'GET', path: '/view' });
  });
});

describe('fitting provider output', () => {
  it("fits any provider size back to the input's size after EXIF orientation, as sRGB JPEG", async () => {
    const output = await fitOutput(await fakePicture(1024, 1024), { width: 300, height: 500 });
    expect(await sharp(output.data).metadata()).toMatchObject({
      format: 'jpeg',
      width: 300,
      height: 500,
      space: 'srgb',
    });
    const sideways = await sharp(await roomJpeg(500, 300))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const info = await createEngine(loadConfig({})).inspect(sideways);
    expect(info).toMatchObject({ width: 300, height: 500 });
  });

  it('answers engine_unavailable, not invalid_image, when the provider returns no picture', async () => {
    await expect(fitOutput(Buffer.from('not a picture'), { width: 300, height: 300 })).rejects.toMatchObject({
      code: 'engine_unavailable',
    });
  });
});

describe('what a provider is sent', () => {
  it('sends a plain sRGB JPEG within 2048 px as it is, byte for byte', async () => {
    const plain = await roomJpeg(640, 400);
    const sent = await providerInput(plain);
    expect(sent).toMatchObject({ contentType: 'image/jpeg', width: 640, height: 400 });
    expect(sent.data.equals(plain)).toBe(true);
  });

  it('re-encodes a photo that carries EXIF (a place, a camera): upright, and the metadata gone', async () => {
    const sideways = await sharp(await roomJpeg(500, 300))
      .withMetadata({ orientation: 6 })
      .withExif({ IFD0: { Make: 'Phone' } })
      .jpeg()
      .toBuffer();
    const sent = await providerInput(sideways);
    expect(sent).toMatchObject({ width: 300, height: 500 });
    const metadata = await sharp(sent.data).metadata();
    expect(metadata.exif).toBeUndefined();
    expect(metadata.orientation).toBeUndefined();
  });

  it('shrinks a larger photo to a 2048 px long edge, and converts a PNG to JPEG', async () => {
    const large = await providerInput(await roomJpeg(3000, 2000));
    expect(large).toMatchObject({ width: 2048, height: 1365 });
    const png = await providerInput(
      await sharp(await roomJpeg(400, 300))
        .png()
        .toBuffer(),
    );
    expect((await sharp(png.data).metadata()).format).toBe('jpeg');
  });

  it('does not pass on a cut-off JPEG: it is decoded, and fails there', async () => {
    const whole = await roomJpeg(640, 400);
    await expect(providerInput(whole.subarray(0, whole.length - 200))).rejects.toThrow();
  });
});

describe('remote calls', () => {
  it('keeps at most ENGINE_CONCURRENCY images at the provider at once', async () => {
    const calls = new RemoteCalls({ timeoutMs: 5_000, concurrency: 2, network: { allowPrivateNetwork: true } });
    let inFlight = 0;
    let most = 0;
    const task = () =>
      calls.run(async (call) => {
        most = Math.max(most, ++inFlight);
        await call.sleep(100);
        inFlight--;
      });
    await Promise.all([task(), task(), task(), task(), task()]);
    expect(most).toBe(2);
  });

  it('ends work that ignores the deadline at ENGINE_TIMEOUT', async () => {
    const calls = new RemoteCalls({ timeoutMs: 200, concurrency: 1, network: { allowPrivateNetwork: true } });
    const never = calls.run(() => new Promise(() => {}));
    await expect(never).rejects.toMatchObject({ code: 'engine_unavailable' });
  });
});
