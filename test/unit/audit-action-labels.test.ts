import { describe, expect, it } from 'vitest';
import { AUDIT_ACTION_LABELS } from '../../app/utils/audit-actions.js';
import { AUDIT_ACTIONS } from '../../server/domain/audit/audit.js';

describe('Audit log action labels', () => {
  it('name every action the server records, so the filter offers each one', () => {
    const unlabeled = AUDIT_ACTIONS.filter((action) => !(action in AUDIT_ACTION_LABELS));
    expect(unlabeled).toEqual([]);
  });

  it('read as distinct phrases', () => {
    const labels = Object.values(AUDIT_ACTION_LABELS);
    expect(new Set(labels).size).toBe(labels.length);
  });
});
