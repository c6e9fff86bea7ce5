import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('layers (npm run check:layers)', () => {
  it('has no import pointing up the layer order', () => {
    // The script is what contributors run; the test runs the same script and shows its list when it fails.
    let output = '';
    try {
      output = execFileSync(process.execPath, ['scripts/check-layers.mjs'], { encoding: 'utf8' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output.trim()).toBe('0 imports pointing up the layers');
  });
});
