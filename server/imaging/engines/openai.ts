/**
 * ENGINE=openai: an image-edit model through the official client's `images.edit` (multipart in, `b64_json` or a URL
 * out), at OPENAI_BASE_URL for any OpenAI-compatible server. The client's own retries are off: the remote engine's
 * fetch retries within ENGINE_TIMEOUT instead. The API has no negative prompt, so the prompt says what to avoid.
 */
import OpenAI, { BadRequestError, toFile } from 'openai';
import type { EngineConfig } from '../../env.js';
import { EngineRejected } from './failures.js';
import type { ProviderInput } from './fit-output.js';
import type { StagingPrompt } from './prompts.js';
import { pictureAt, type RemoteCall, type StagingProvider } from './remote-engine.js';

type OpenAiSettings = Extract<EngineConfig, { name: 'openai' }>;

/** The codes OpenAI answers a moderation or content policy refusal with (400). */
const REFUSAL_CODES = new Set(['content_policy_violation', 'moderation_blocked']);

/** gpt-image models draw in one of three sizes; the closest to the photo's shape loses least to the final crop. */
export function editSize(model: string, source: ProviderInput): '1024x1024' | '1536x1024' | '1024x1536' | undefined {
  if (!model.startsWith('gpt-image')) return undefined;
  const ratio = source.width / source.height;
  if (ratio > 1.2) return '1536x1024';
  if (ratio < 1 / 1.2) return '1024x1536';
  return '1024x1024';
}

/** Staging and decluttering are both edits of the photo; only the prompt differs. */
export function openAiProvider(settings: OpenAiSettings): StagingProvider {
  const edit = async (call: RemoteCall, source: ProviderInput, prompt: string): Promise<Buffer> => {
    const client = new OpenAI({
      apiKey: settings.apiKey,
      baseURL: settings.baseUrl,
      fetch: call.fetch,
      maxRetries: 0,
      timeout: call.remainingMs(),
    });
    const size = editSize(settings.model, source);
    try {
      const response = await client.images.edit(
        {
          model: settings.model,
          image: await toFile(source.data, 'room.jpg', { type: source.contentType }),
          prompt,
          n: 1,
          ...(size && { size }),
        },
        { signal: call.signal },
      );
      const [picture] = response.data ?? [];
      if (picture?.b64_json) return Buffer.from(picture.b64_json, 'base64');
      if (picture?.url) return pictureAt(call, picture.url);
      throw new Error('images.edit answered without a picture');
    } catch (error) {
      if (
        error instanceof BadRequestError &&
        (REFUSAL_CODES.has(error.code ?? '') || /safety system|content policy/i.test(error.message))
      ) {
        throw new EngineRejected(
          `The staging engine refused this image: ${error.message.slice(0, 200)}. Your credits were refunded.`,
        );
      }
      throw error;
    }
  };
  const withRoomKept = (request: StagingPrompt) =>
    `${request.prompt} Keep the room itself exactly as it is. Avoid ${request.negativePrompt}.`;
  return {
    name: 'openai',
    stage: (call, source, request) => edit(call, source, withRoomKept(request)),
    declutter: (call, source, request) => edit(call, source, withRoomKept(request)),
  };
}
