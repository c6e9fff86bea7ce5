import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type FakeAnswer, FakeProvider } from '../fixtures/fake-provider.js';

interface QueuedPrompt {
  workflow: Record<string, { inputs: Record<string, unknown> }>;
  prompt: string;
  picture: Promise<Buffer>;
  finished: boolean;
  failed: boolean;
}

/**
 * ComfyUI's HTTP API: POST /upload/image (multipart), POST /prompt (an API-format workflow), GET /history/{id}
 * (empty until the prompt ends), GET /view. The prompt ends `delayMs` after it is queued; `refuse` makes it end in
 * an execution error.
 */
export class FakeComfyUI extends FakeProvider {
  readonly uploads = new Map<string, Buffer>();
  readonly prompts = new Map<string, QueuedPrompt>();

  /** With `declutter`, the example workflow also serves as COMFYUI_DECLUTTER_WORKFLOW (only its prompt differs). */
  env(options: { declutter?: boolean } = {}): Record<string, string> {
    return {
      ENGINE: 'comfyui',
      COMFYUI_URL: this.url,
      ...(options.declutter !== false && { COMFYUI_DECLUTTER_WORKFLOW: 'docs/engines/comfyui-staging-workflow.json' }),
    };
  }

  protected async route(method: string, url: URL, body: Buffer, req: IncomingMessage): Promise<FakeAnswer> {
    if (method === 'POST' && url.pathname === '/upload/image') {
      const form = await this.formOf(req, body);
      const image = form.get('image');
      if (!(image instanceof File)) return { status: 400, body: {} };
      this.uploads.set(image.name, Buffer.from(await image.arrayBuffer()));
      return { status: 200, body: { name: image.name, subfolder: '', type: String(form.get('type') ?? 'input') } };
    }
    if (method === 'POST' && url.pathname === '/prompt') {
      const { prompt: workflow } = JSON.parse(body.toString('utf8')) as { prompt: QueuedPrompt['workflow'] };
      const loaded = Object.values(workflow).find((node) => 'image' in node.inputs)?.inputs.image;
      if (typeof loaded !== 'string' || !this.uploads.has(loaded)) {
        return {
          status: 400,
          body: {
            error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation' },
            node_errors: {},
          },
        };
      }
      const texts = Object.values(workflow).flatMap((node) =>
        typeof node.inputs.text === 'string' ? [node.inputs.text] : [],
      );
      const seed = Object.values(workflow).find((node) => 'seed' in node.inputs)?.inputs.seed as number;
      this.commissions.push({ prompt: texts[0] ?? '', negativePrompt: texts[1], seed });
      const id = randomUUID();
      const picture = this.pictureFor(texts[0] ?? '', this.uploads.get(loaded)!);
      picture.catch(() => {});
      const queued: QueuedPrompt = { workflow, prompt: texts[0] ?? '', picture, finished: false, failed: false };
      this.prompts.set(id, queued);
      const refuse = this.refuse;
      void this.draw().then(() => Object.assign(queued, { finished: true, failed: refuse }));
      return { status: 200, body: { prompt_id: id, number: this.prompts.size, node_errors: {} } };
    }
    const historyPath = method === 'GET' ? url.pathname.match(/^\/history\/([^/]+)$/) : null;
    if (historyPath) {
      const queued = this.prompts.get(historyPath[1]!);
      if (!queued?.finished) return { status: 200, body: {} };
      const status = { status_str: queued.failed ? 'error' : 'success', completed: !queued.failed, messages: [] };
      const outputs = queued.failed
        ? {}
        : { '9': { images: [{ filename: `roomstage_${historyPath[1]}.png`, subfolder: '', type: 'output' }] } };
      return {
        status: 200,
        body: { [historyPath[1]!]: { prompt: [0, historyPath[1], queued.workflow, {}, ['9']], outputs, status } },
      };
    }
    if (method === 'GET' && url.pathname === '/view' && url.searchParams.get('type') === 'output') {
      const id = /^roomstage_(.+)\.png$/.exec(url.searchParams.get('filename') ?? '')?.[1] ?? '';
      const queued = this.prompts.get(id);
      return queued ? { status: 200, body: await queued.picture } : { status: 404, body: {} };
    }
    return { status: 404, body: {} };
  }
}
