/**
 * ENGINE=comfyui: a self-hosted ComfyUI over its HTTP API, through the outbound client: the photo is uploaded
 * (POST /upload/image), the workflow (API format, COMFYUI_WORKFLOW) is queued with its placeholders filled
 * (POST /prompt), its history is polled until it ends (GET /history/{id}) and its first image output is
 * downloaded (GET /view).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FormData } from 'undici';
import type { EngineConfig } from '../../env.js';
import { type OutboundResponse, readLimited } from '../../outbound/client.js';
import { PROJECT_ROOT } from '../../paths.js';
import type { ProviderInput } from './fit-output.js';
import { fillPlaceholders, mentionsPlaceholder } from './placeholders.js';
import type { StagingPrompt } from './prompts.js';
import { pictureAt, type RemoteCall, type StagingProvider } from './remote-engine.js';

type ComfyUiSettings = Extract<EngineConfig, { name: 'comfyui' }>;

const POLL_INTERVAL_MS = 500;
const MAX_JSON_BYTES = 8 * 1024 * 1024;

interface ImageRef {
  filename: string;
  subfolder: string;
  type: string;
}

interface HistoryEntry {
  outputs?: Record<string, { images?: ImageRef[] }>;
  status?: { status_str?: string; completed?: boolean; messages?: unknown[] };
}

/** Reads a workflow at start, so a missing or broken file stops the server with its path. */
export function loadWorkflow(file: string, variable = 'COMFYUI_WORKFLOW'): Record<string, unknown> {
  const resolved = path.resolve(PROJECT_ROOT, file);
  let workflow: unknown;
  try {
    workflow = JSON.parse(readFileSync(resolved, 'utf8'));
  } catch (error) {
    throw new Error(`${variable}: cannot read an API-format workflow JSON at ${resolved}: ${(error as Error).message}`);
  }
  if (!workflow || typeof workflow !== 'object' || Array.isArray(workflow) || !mentionsPlaceholder(workflow, 'image')) {
    throw new Error(`${variable}: ${resolved} must be an API-format workflow (an object of nodes) using "{{image}}"`);
  }
  return workflow as Record<string, unknown>;
}

async function json<T>(response: OutboundResponse, what: string): Promise<T> {
  if (response.statusCode !== 200) {
    const detail = (await readLimited(response, MAX_JSON_BYTES).catch(() => Buffer.alloc(0)))
      .toString('utf8')
      .slice(0, 300);
    throw new Error(`ComfyUI ${what} answered ${response.statusCode}: ${detail}`);
  }
  return JSON.parse((await readLimited(response, MAX_JSON_BYTES)).toString('utf8')) as T;
}

/** The first image output of a finished prompt, in the workflow's node order. */
export function firstImageOutput(entry: HistoryEntry): ImageRef | null {
  for (const output of Object.values(entry.outputs ?? {})) {
    const [image] = output.images ?? [];
    if (image) return image;
  }
  return null;
}

/** Staging queues COMFYUI_WORKFLOW; decluttering queues COMFYUI_DECLUTTER_WORKFLOW, when set. */
export function comfyUiProvider(settings: ComfyUiSettings): StagingProvider {
  const workflow = loadWorkflow(settings.workflowPath);
  const declutterWorkflow = settings.declutterWorkflowPath
    ? loadWorkflow(settings.declutterWorkflowPath, 'COMFYUI_DECLUTTER_WORKFLOW')
    : null;
  const base = settings.url.endsWith('/') ? settings.url : `${settings.url}/`;
  const at = (route: string) => new URL(route, base);
  const run = async (
    workflow: Record<string, unknown>,
    call: RemoteCall,
    source: ProviderInput,
    request: StagingPrompt,
  ): Promise<Buffer> => {
    const form = new FormData();
    form.append(
      'image',
      new Blob([new Uint8Array(source.data)], { type: source.contentType }),
      `roomstage-${randomUUID()}.jpg`,
    );
    form.append('type', 'input');
    form.append('overwrite', 'true');
    const uploaded = await json<ImageRef & { name: string }>(
      await call.send(at('upload/image'), { method: 'POST', headers: {}, body: form }),
      'upload',
    );
    const image = uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
    const prompt = fillPlaceholders(workflow, {
      image,
      prompt: request.prompt,
      negative_prompt: request.negativePrompt,
      seed: request.seed,
    });
    const queued = await json<{ prompt_id: string }>(
      await call.send(at('prompt'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt, client_id: randomUUID() }),
      }),
      'prompt',
    );
    for (;;) {
      const history = await json<Record<string, HistoryEntry>>(
        await call.send(at(`history/${encodeURIComponent(queued.prompt_id)}`), { method: 'GET', headers: {} }),
        'history',
      );
      const entry = history[queued.prompt_id];
      if (entry?.status?.status_str === 'error')
        throw new Error(
          `ComfyUI prompt ${queued.prompt_id} failed: ${JSON.stringify(entry.status.messages ?? []).slice(0, 300)}`,
        );
      if (entry && (entry.status?.completed ?? true)) {
        const output = firstImageOutput(entry);
        if (!output) throw new Error(`ComfyUI prompt ${queued.prompt_id} finished without an image output`);
        const view = at('view');
        view.search = new URLSearchParams({
          filename: output.filename,
          subfolder: output.subfolder,
          type: output.type,
        }).toString();
        return pictureAt(call, view.toString());
      }
      await call.sleep(POLL_INTERVAL_MS);
    }
  };
  return {
    name: 'comfyui',
    stage: (call, source, request) => run(workflow, call, source, request),
    ...(declutterWorkflow && {
      declutter: (call: RemoteCall, source: ProviderInput, request: StagingPrompt) =>
        run(declutterWorkflow, call, source, request),
    }),
  };
}
