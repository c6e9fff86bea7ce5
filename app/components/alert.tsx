import type { ReactNode } from 'react';

interface Props {
  tone: 'error' | 'success' | 'info' | 'warning';
  title?: string;
  children: ReactNode;
}

/** A message box. Errors are announced at once (role="alert"); the rest politely (role="status"). */
export function Alert({ tone, title, children }: Props) {
  return (
    <div className={`alert alert--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {title ? <p className="alert__title">{title}</p> : null}
      <div className="alert__body">{children}</div>
    </div>
  );
}
