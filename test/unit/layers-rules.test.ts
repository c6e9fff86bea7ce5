import { describe, expect, it } from 'vitest';
import { importsOf, layerOf } from '../../scripts/check-layers.mjs';

describe('check:layers reads every kind of import', () => {
  it('sees relative, aliased, package-style, type-only, multi-line and dynamic imports', () => {
    const source = [
      "import { a } from '../server/domain/keys/api-keys.js';",
      "import type { AppCaller } from '~/../server/root.js';",
      'import {',
      '  b,',
      '  c,',
      "} from 'server/errors.js';",
      "export { d } from './d.js';",
      "import 'side-effect-only';",
      "const later = await import('../../server/main.js');",
    ].join('\n');
    expect(importsOf(source)).toEqual([
      { spec: '../server/domain/keys/api-keys.js', typeOnly: false },
      { spec: '~/../server/root.js', typeOnly: true },
      { spec: 'server/errors.js', typeOnly: false },
      { spec: './d.js', typeOnly: false },
      { spec: 'side-effect-only', typeOnly: false },
      { spec: '../../server/main.js', typeOnly: false },
    ]);
  });

  it("puts a feature's delivery machinery above its domain code and shared/ at the bottom", () => {
    expect(layerOf('server/domain/webhooks/webhooks.ts')).toBe('domain');
    expect(layerOf('server/domain/webhooks/delivery/worker.ts')).toBe('delivery');
    expect(layerOf('server/domain/mail/delivery/sender.ts')).toBe('delivery');
    expect(layerOf('shared/auto-topup-rules.ts')).toBe('base');
    expect(layerOf('server/routers/keys.ts')).toBe('api');
  });
});
