import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { committedBlock, descriptionProblems, LAYOUT_DOC, renderLayout } from '../../scripts/layout.js';

describe('the Layout block of docs/contributors/layout.md (npm run docs:layout)', () => {
  it('describes every folder and top-level file of the tree, and nothing that is gone', () => {
    expect(descriptionProblems()).toEqual([]);
  });

  it('is what the script writes from the tree today', () => {
    // A folder added, moved or removed without re-running `npm run docs:layout` fails here.
    expect(committedBlock(readFileSync(LAYOUT_DOC, 'utf8'))).toBe(renderLayout());
  });
});
