import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Badge } from '../components/badge.js';
import { DataTable } from '../components/data-table.js';
import { Field } from '../components/field.js';
import { EmptyState } from '../components/empty-state.js';
import {
  OperatorForm,
  type OperatorFormResult,
  OperatorMessage,
  OperatorSelect,
} from '../components/operators/operator-form.js';
import usageStyles from '../styles/usage.css?url';
import { formText, unknownIntent } from '../utils/forms.server.js';
import { formatCents, formatTimestamp } from '../utils/format.js';
import { notFoundMeta, pageMeta } from '../utils/meta.js';
import { operatorChange, requireOperator } from '../utils/operator.server.js';

export const meta: MetaFunction = ({ error }) =>
  error
    ? notFoundMeta()
    : pageMeta('Payouts · Operator console · Roomstage', 'Agents’ payout requests: mark them paid or reject them.');
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: usageStyles }];

const STATUSES = ['requested', 'paid', 'rejected'] as const;
type Status = (typeof STATUSES)[number];
const STATUS_TONE = { requested: 'test', paid: 'active', rejected: 'revoked' } as const;

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireOperator(context);
  const asked = new URL(request.url).searchParams.get('status') ?? '';
  // An unknown status in the address shows every payout rather than an error.
  const status = (STATUSES as readonly string[]).includes(asked) ? (asked as Status) : null;
  const [{ payouts }, queue] = await Promise.all([
    context.trpc.admin.payouts({ status: status ?? undefined }),
    status === 'requested' ? null : context.trpc.admin.payouts({ status: 'requested' }),
  ]);
  return { status, payouts, requested: queue ? queue.payouts : payouts };
}

export async function action({ context, request }: ActionFunctionArgs) {
  await requireOperator(context);
  const form = await request.formData();
  const intent = formText(form, 'intent');
  if (formText(form, 'form') !== 'settle' || (intent !== 'paid' && intent !== 'reject')) return unknownIntent();
  const reference = formText(form, 'reference')?.trim() || undefined;
  const input = { id: formText(form, 'payout_id') ?? '', reference, reason: formText(form, 'reason') ?? '' };
  return operatorChange(context, 'settle', ['reference'], async () => {
    const payout = await (intent === 'paid'
      ? context.trpc.admin.payoutPaid(input)
      : context.trpc.admin.payoutReject(input));
    return intent === 'paid'
      ? `Payout of ${formatCents(payout.amount_cents)} to ${payout.email} marked paid (reference ${payout.reference ?? '—'}); the agent is e-mailed.`
      : `Payout of ${formatCents(payout.amount_cents)} to ${payout.email} rejected; the amount is available to the agent again.`;
  });
}

export default function OperatorPayouts() {
  const { status, payouts, requested } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as OperatorFormResult;
  const loading = useNavigation().state === 'loading';
  return (
    <>
      <header className="page-header">
        <p className="eyebrow">
          <Link to="/admin">Operator console</Link>
        </p>
        <h1>Payouts</h1>
        <p className="lead">
          Pay a requested payout by bank transfer, then mark it paid with the transfer’s reference; or reject it, which
          returns the amount to the agent’s available earnings. Either way the agent is e-mailed.
        </p>
      </header>

      <section className="card" aria-labelledby="settle-title">
        <h2 id="settle-title">Settle a payout</h2>
        {requested.length === 0 ? (
          <>
            <EmptyState>No payout is waiting to be paid.</EmptyState>
            <OperatorMessage form="settle" result={result} />
          </>
        ) : (
          <OperatorForm
            form="settle"
            title={`${requested.length} waiting, oldest first`}
            result={result}
            fields={(errors) => (
              <>
                <OperatorSelect
                  id="settle-payout"
                  name="payout_id"
                  label="Payout"
                  options={requested.map((payout) => ({
                    value: payout.id,
                    label: `${formatCents(payout.amount_cents)} to ${payout.email}, requested ${formatTimestamp(payout.created_at)}`,
                  }))}
                />
                <Field
                  label="Transfer reference (when paid)"
                  name="reference"
                  inputId="settle-reference"
                  maxLength={200}
                  autoComplete="off"
                  error={errors.reference}
                />
              </>
            )}
            buttons={(busy) => (
              <>
                <button type="submit" name="intent" value="paid" className="button button--primary" disabled={busy}>
                  Mark paid
                </button>
                <button type="submit" name="intent" value="reject" className="button button--danger" disabled={busy}>
                  Reject
                </button>
              </>
            )}
          />
        )}
      </section>

      <section className="card" aria-labelledby="payouts-title">
        <h2 id="payouts-title">{status ? `Payouts ${status}` : 'Every payout'}</h2>
        <Form method="get" className="usage-range">
          <div className="field">
            <label htmlFor="payout-status" className="field__label">
              Status
            </label>
            <select id="payout-status" name="status" className="input" defaultValue={status ?? ''}>
              <option value="">Any status</option>
              {STATUSES.map((one) => (
                <option key={one} value={one}>
                  {one}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button" disabled={loading}>
            {loading ? 'Loading…' : 'Show'}
          </button>
        </Form>
        <DataTable
          rows={payouts}
          columns={[
            'Requested (UTC)',
            'Agent',
            { name: 'Amount', className: 'data-table__number' },
            'Status',
            'Reference',
            'Paid (UTC)',
          ]}
          empty="No payouts with this status."
        >
          {(payout) => (
            <tr key={payout.id}>
              <td data-label="Requested (UTC)">{formatTimestamp(payout.created_at)}</td>
              <td data-label="Agent">
                <Link to={`/admin/accounts/${payout.account_id}`}>{payout.email}</Link>
              </td>
              <td data-label="Amount" className="data-table__number">
                {formatCents(payout.amount_cents)}
              </td>
              <td data-label="Status">
                <Badge tone={STATUS_TONE[payout.status]}>{payout.status}</Badge>
              </td>
              <td data-label="Reference">{payout.reference ?? '—'}</td>
              <td data-label="Paid (UTC)">{payout.paid_at ? formatTimestamp(payout.paid_at) : '—'}</td>
            </tr>
          )}
        </DataTable>
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
