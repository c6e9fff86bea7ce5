import type { ReactNode } from 'react';

interface Props {
  tone: 'live' | 'test' | 'active' | 'revoked';
  children: ReactNode;
}

export function Badge({ tone, children }: Props) {
  return <span className={`badge badge--${tone}`}>{children}</span>;
}
