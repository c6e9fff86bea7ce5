import { describe, expect, it } from 'vitest';
import { ROOM_TYPES, STYLES } from '../../../../server/imaging/catalog-data.js';
import { fillPlaceholders } from '../../../../server/imaging/engines/placeholders.js';
import { PROMPT_TABLE, stagingPrompt } from '../../../../server/imaging/engines/prompts.js';
import { loadWorkflow } from '../../../../server/imaging/engines/comfyui.js';

describe('staging prompts', () => {
  it('has a distinct prompt for every style and room type', () => {
    const prompts = STYLES.flatMap((style) => ROOM_TYPES.map((room) => stagingPrompt(style, room, 1).prompt));
    expect(new Set(prompts).size).toBe(STYLES.length * ROOM_TYPES.length);
    expect(stagingPrompt('mid_century', 'kitchen', 1).prompt).toMatch(/kitchen.*mid-century/);
  });

  it('sends the same prompt and seed for the same request and seed, and draws a seed otherwise', () => {
    expect(stagingPrompt('coastal', 'bedroom', 42)).toEqual(stagingPrompt('coastal', 'bedroom', 42));
    expect(stagingPrompt('coastal', 'bedroom', 42).seed).toBe(42);
    const drawn = new Set(Array.from({ length: 5 }, () => stagingPrompt('coastal', 'bedroom').seed));
    expect(drawn.size).toBeGreaterThan(1);
  });

  it('always forbids changing walls, windows, doors, floors and the view', () => {
    expect(PROMPT_TABLE.negative).toMatch(/walls, windows, doors, floors.*the view/);
    expect(stagingPrompt('luxury', 'office').negativePrompt).toBe(PROMPT_TABLE.negative);
  });
});

describe('placeholders', () => {
  it('replaces whole placeholder strings, keeping the seed a number, and leaves other text alone', () => {
    const filled = fillPlaceholders(
      { a: { inputs: { seed: '{{seed}}', text: '{{prompt}}', other: 'say {{prompt}}', list: ['{{image}}', 3] } } },
      { image: 'in.jpg', prompt: 'a room', negative_prompt: 'no', seed: 7 },
    );
    expect(filled).toEqual({
      a: { inputs: { seed: 7, text: 'a room', other: 'say {{prompt}}', list: ['in.jpg', 3] } },
    });
  });

  it('ships a ComfyUI workflow that names the image, both prompts and the seed', () => {
    const workflow = JSON.stringify(loadWorkflow('docs/engines/comfyui-staging-workflow.json'));
    for (const name of ['image', 'prompt', 'negative_prompt', 'seed']) expect(workflow).toContain(`"{{${name}}}"`);
    expect(() => loadWorkflow('docs/engines/no-such-workflow.json')).toThrow(/COMFYUI_WORKFLOW/);
  });
});
