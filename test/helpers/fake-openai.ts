import type { IncomingMessage } from 'node:http';
import sharp from 'sharp';
import { type FakeAnswer, FakeProvider } from '../fixtures/fake-provider.js';

/**
 * OpenAI's `POST /v1/images/edits` as the official client sends it (multipart: image, prompt, model, n, size) and
 * answers it (`b64_json`). `refuse` answers 400 as the moderation system does.
 */
export class FakeOpenAI extends FakeProvider {
  readonly edits: Array<{ model: string; size: string | null; imageWidth: number; imageHeight: number }> = [];

  env(): Record<string, string> {
    return { ENGINE: 'openai', OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: `${this.url}/v1` };
  }

  protected async route(method: string, url: URL, body: Buffer, req: IncomingMessage): Promise<FakeAnswer> {
    if (req.headers.authorization !== 'Bearer sk-fake')
      return {
        status: 401,
        body: {
          error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
        },
      };
    if (method !== 'POST' || url.pathname !== '/v1/images/edits')
      return { status: 404, body: { error: { message: 'Not found', type: 'invalid_request_error' } } };
    const form = await this.formOf(req, body);
    const image = form.get('image');
    if (!(image instanceof Blob))
      return {
        status: 400,
        body: { error: { message: 'image is required', type: 'invalid_request_error', param: 'image' } },
      };
    const photo = Buffer.from(await image.arrayBuffer());
    const { width = 0, height = 0 } = await sharp(photo).metadata();
    this.edits.push({
      model: String(form.get('model')),
      size: form.get('size') as string | null,
      imageWidth: width,
      imageHeight: height,
    });
    this.commissions.push({ prompt: String(form.get('prompt')) });
    const picture = this.pictureFor(String(form.get('prompt')), photo);
    picture.catch(() => {});
    await this.draw();
    if (this.refuse) {
      return {
        status: 400,
        body: {
          error: {
            message: 'Your request was rejected as a result of our safety system.',
            type: 'image_generation_user_error',
            param: null,
            code: 'moderation_blocked',
          },
        },
      };
    }
    return {
      status: 200,
      body: {
        created: Math.floor(Date.now() / 1000),
        data: [{ b64_json: (await picture).toString('base64') }],
      },
    };
  }
}
