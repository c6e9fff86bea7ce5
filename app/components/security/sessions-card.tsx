import { Form } from '@remix-run/react';
import { formatTimestamp } from '../../utils/format.js';
import { Alert } from '../alert.js';
import { Badge } from '../badge.js';
import { DataTable } from '../data-table.js';
import type { SessionRow } from './types.js';

interface Props {
  sessions: readonly SessionRow[];
  /** How many sessions "Sign out everywhere else" just ended, or null. */
  ended: number | null;
  pending: boolean;
}

const when = (iso: string | null) => (iso ? <time dateTime={iso}>{formatTimestamp(iso)}</time> : '—');

/** Where the user is signed in, this browser marked, and one button that ends all the others. */
export function SessionsCard({ sessions, ended, pending }: Props) {
  const others = sessions.filter((session) => !session.current).length;
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Active sessions</h2>
      <p className="muted">Every browser and device signed in to your account, most recently used first.</p>
      <div aria-live="polite">
        {ended !== null ? (
          <Alert tone="success">
            <p>
              {ended === 0
                ? 'There was no other session to end.'
                : `Signed out ${ended === 1 ? 'one other session' : `${ended} other sessions`}. Only this browser is still signed in.`}
            </p>
          </Alert>
        ) : null}
      </div>
      <DataTable
        rows={sessions}
        columns={[
          {
            name: 'Signed in',
            label: (
              <>
                Signed in <span className="data-table__note">(UTC)</span>
              </>
            ),
          },
          {
            name: 'Last seen',
            label: (
              <>
                Last seen <span className="data-table__note">(UTC)</span>
              </>
            ),
          },
          'IP address',
          'Browser',
        ]}
        empty="No active sessions."
      >
        {(session) => (
          <tr key={session.id} className={session.current ? 'is-current' : undefined}>
            <td data-label="Signed in (UTC)">
              {when(session.created_at)}
              {session.current ? (
                <>
                  {' '}
                  <Badge tone="active">This session</Badge>
                </>
              ) : null}
            </td>
            <td data-label="Last seen (UTC)">{when(session.last_seen_at)}</td>
            <td data-label="IP address">{session.ip ?? '—'}</td>
            <td data-label="Browser" className="cell-user-agent">
              {session.user_agent ?? '—'}
            </td>
          </tr>
        )}
      </DataTable>
      {others > 0 ? (
        <Form method="post" className="security-form">
          <input type="hidden" name="intent" value="end-other-sessions" />
          <button type="submit" className="button button--danger-ghost" disabled={pending}>
            {pending ? 'Signing out…' : 'Sign out everywhere else'}
          </button>
        </Form>
      ) : (
        <p className="muted">This is your only session.</p>
      )}
    </section>
  );
}
