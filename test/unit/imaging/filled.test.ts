import { describe, expect, it } from 'vitest';
import { filled } from '../../../server/imaging/filled.js';

describe('filled', () => {
  it('makes an array of the type and length asked, every element the value, on memory of its own', () => {
    const floats = filled(Float32Array, 76_800, 1);
    expect(floats).toBeInstanceOf(Float32Array);
    expect(floats.length).toBe(76_800);
    expect(floats.every((v) => v === 1)).toBe(true);
    const labels = filled(Int32Array, 1200, -1);
    expect(labels).toBeInstanceOf(Int32Array);
    expect(labels.every((v) => v === -1)).toBe(true);
    const other = filled(Float32Array, 76_800, 1);
    other[0] = 5;
    expect(floats[0]).toBe(1);
    expect(filled(Uint8Array, 0).length).toBe(0);
  });

  it('zeroes memory the allocator hands back uninitialised', () => {
    // Blocks of the same size written with garbage and dropped are what malloc hands out next: every one made after
    // them must still read 0 everywhere.
    for (let round = 0; round < 20; round++) {
      for (let k = 0; k < 8; k++) Buffer.allocUnsafeSlow(307_200).fill(0xab);
      const grey = filled(Float32Array, 76_800);
      const bytes = filled(Uint8Array, 307_200);
      expect(grey.every((v) => v === 0)).toBe(true);
      expect(bytes.every((v) => v === 0)).toBe(true);
    }
  });
});
