import type { ReactNode } from 'react';

/** What a card says where its list or table has nothing to show yet, with the step that fills it. */
export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="empty-state">{children}</p>;
}
