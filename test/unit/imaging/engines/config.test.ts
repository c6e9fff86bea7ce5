import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../server/env.js';

describe('engine configuration', () => {
  it('runs the built-in engine with a 120 s timeout and 8 images at once by default', () => {
    expect(loadConfig({}).engine).toEqual({ name: 'builtin', timeoutMs: 120_000, concurrency: 8 });
  });

  it("stops at start naming each engine's missing required variable", () => {
    expect(() => loadConfig({ ENGINE: 'replicate' })).toThrow(/REPLICATE_API_TOKEN: required when ENGINE=replicate/);
    expect(() => loadConfig({ ENGINE: 'replicate', REPLICATE_API_TOKEN: 'r8' })).toThrow(/REPLICATE_MODEL/);
    expect(() => loadConfig({ ENGINE: 'openai' })).toThrow(/OPENAI_API_KEY: required when ENGINE=openai/);
    expect(() => loadConfig({ ENGINE: 'comfyui' })).toThrow(/COMFYUI_URL: required when ENGINE=comfyui/);
    expect(() => loadConfig({ ENGINE: 'midjourney' })).toThrow(/ENGINE/);
  });

  it('reads each provider with its defaults', () => {
    expect(
      loadConfig({ ENGINE: 'replicate', REPLICATE_API_TOKEN: 'r8', REPLICATE_MODEL: 'a/b:c1' }).engine,
    ).toMatchObject({
      name: 'replicate',
      model: 'a/b:c1',
      baseUrl: 'https://api.replicate.com/v1',
    });
    expect(loadConfig({ ENGINE: 'openai', OPENAI_API_KEY: 'sk', ENGINE_TIMEOUT: '30s' }).engine).toEqual({
      name: 'openai',
      apiKey: 'sk',
      model: 'gpt-image-1',
      baseUrl: undefined,
      timeoutMs: 30_000,
      concurrency: 8,
    });
    expect(loadConfig({ ENGINE: 'comfyui', COMFYUI_URL: 'http://gpu:8188' }).engine).toMatchObject({
      workflowPath: 'docs/engines/comfyui-staging-workflow.json',
    });
  });

  it('takes REPLICATE_INPUT_TEMPLATE only as a JSON object', () => {
    const base = { ENGINE: 'replicate', REPLICATE_API_TOKEN: 'r8', REPLICATE_MODEL: 'a/b' };
    const template = '{"input_image":"{{image}}","text":"{{prompt}}"}';
    expect(loadConfig({ ...base, REPLICATE_INPUT_TEMPLATE: template }).engine).toMatchObject({
      inputTemplate: { input_image: '{{image}}', text: '{{prompt}}' },
    });
    expect(() => loadConfig({ ...base, REPLICATE_INPUT_TEMPLATE: '[1]' })).toThrow(
      /REPLICATE_INPUT_TEMPLATE: must be a JSON object/,
    );
  });
});
