import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useActionData, useLoaderData } from '@remix-run/react';
import { Badge } from '../components/badge.js';
import { TransactionsTable } from '../components/billing/transactions-table.js';
import { DataTable } from '../components/data-table.js';
import { EmptyState } from '../components/empty-state.js';
import { Field } from '../components/field.js';
import {
  OperatorForm,
  type OperatorFormResult,
  OperatorMessage,
  OperatorSelect,
} from '../components/operators/operator-form.js';
import { AuditTable } from '../components/security/audit-table.js';
import operatorStyles from '../styles/operators.css?url';
import securityStyles from '../styles/security.css?url';
import usageStyles from '../styles/usage.css?url';
import { formText, unknownIntent } from '../utils/forms.server.js';
import { formatCents, formatTimestamp, humanize } from '../utils/format.js';
import { notFoundMeta, pageMeta } from '../utils/meta.js';
import {
  notFound,
  operatorChange,
  operatorFieldFailure,
  readSignedAmount,
  requireOperator,
  rethrowNotFound,
} from '../utils/operator.server.js';

export const meta: MetaFunction<typeof loader> = ({ data, error }) =>
  error || !data
    ? notFoundMeta()
    : pageMeta(
        `${data.account.name} · Operator console · Roomstage`,
        'One account as an operator sees it: money, members, keys, jobs, webhooks, ads, earnings and its audit log.',
      );
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: usageStyles },
  { rel: 'stylesheet', href: securityStyles },
  { rel: 'stylesheet', href: operatorStyles },
];

function accountIdFrom(params: { id?: string }): string {
  const id = params.id ?? '';
  if (id === '' || id.length > 64) throw notFound();
  return id;
}

export async function loader({ context, params }: LoaderFunctionArgs) {
  await requireOperator(context);
  const id = accountIdFrom(params);
  try {
    return { account: await context.trpc.admin.account({ id }) };
  } catch (error) {
    rethrowNotFound(context, error);
  }
}

export async function action({ context, request, params }: ActionFunctionArgs) {
  await requireOperator(context);
  const id = accountIdFrom(params);
  const form = await request.formData();
  const which = formText(form, 'form') ?? '';
  const reason = formText(form, 'reason') ?? '';
  switch (which) {
    case 'credits': {
      const delta = readSignedAmount(form, 'delta', 'the credits', 'whole');
      if (delta.error !== undefined) return operatorFieldFailure(which, { delta: delta.error });
      return operatorChange(context, which, ['delta'], async () => {
        const { credits } = await context.trpc.admin.adjustCredits({ id, delta: delta.value, reason });
        return `${delta.value > 0 ? 'Added' : 'Took'} ${Math.abs(delta.value).toLocaleString('en-GB')} credits. The balance is ${credits.toLocaleString('en-GB')}.`;
      });
    }
    case 'ad-funds': {
      const delta = readSignedAmount(form, 'delta_dollars', 'the amount', 'cents');
      if (delta.error !== undefined) return operatorFieldFailure(which, { delta_dollars: delta.error });
      return operatorChange(context, which, [], async () => {
        const { balance_cents } = await context.trpc.admin.adjustAdFunds({ id, delta_cents: delta.value, reason });
        return `${delta.value > 0 ? 'Added' : 'Took'} ${formatCents(Math.abs(delta.value))}. Ad funds are ${formatCents(balance_cents)}.`;
      });
    }
    case 'refund': {
      const transactionId = formText(form, 'transaction_id') ?? '';
      return operatorChange(context, which, ['transaction_id'], async () => {
        const refund = await context.trpc.admin.refundPurchase({ transaction_id: transactionId, reason });
        const short = refund.credits_short > 0 ? ` ${refund.credits_short} were spent already and stay spent.` : '';
        return `Refunded ${formatCents(refund.refunded_cents)} to the card and took back ${refund.credits_deducted} credits.${short}`;
      });
    }
    case 'suspension': {
      const intent = formText(form, 'intent');
      if (intent !== 'suspend' && intent !== 'unsuspend') return unknownIntent();
      return operatorChange(context, which, [], async () => {
        if (intent === 'suspend') {
          await context.trpc.admin.suspend({ id, reason });
          return 'Suspended. Its keys and sessions are refused from their next request; queued jobs fail and are refunded.';
        }
        await context.trpc.admin.unsuspend({ id, reason });
        return 'Restored. Its keys and sessions work again.';
      });
    }
    case 'product': {
      const intent = formText(form, 'intent');
      if (intent !== 'reject' && intent !== 'restore') return unknownIntent();
      const productId = formText(form, 'product_id') ?? '';
      return operatorChange(context, which, [], async () => {
        const input = { id: productId, reason };
        const product = await (intent === 'reject'
          ? context.trpc.admin.rejectProduct(input)
          : context.trpc.admin.restoreProduct(input));
        return `${product.name} is ${product.status} now.`;
      });
    }
    case 'invalid-traffic': {
      const campaignId = formText(form, 'campaign_id') ?? '';
      const date = (formText(form, 'date') ?? '').trim();
      const address = (formText(form, 'address') ?? '').trim();
      return operatorChange(context, which, ['id', 'date', 'address'], async () => {
        const declared = await context.trpc.admin.invalidTraffic({
          id: campaignId,
          date,
          ...(address === '' ? {} : { address }),
          reason,
        });
        const whose = declared.address ? `from ${declared.address} ` : '';
        if (declared.invalid_impressions === 0)
          return `No valid billed impressions ${whose}on ${declared.date} were left: nothing was refunded.`;
        return `${declared.invalid_impressions.toLocaleString('en-GB')} impressions ${whose}on ${declared.date} are invalid now. Refunded ${formatMillicents(declared.refunded_millicents)} to the advertiser and took ${formatMillicents(declared.earnings_taken_back_millicents)} back from agents’ unpaid earnings.`;
      });
    }
    default:
      return unknownIntent();
  }
}

/** Dollars to the milli-cent (1/1000 cent), as invalid-traffic refunds are exact: $0.01001. */
function formatMillicents(millicents: number): string {
  return `$${(millicents / 100_000).toFixed(5).replace(/(\.\d{2}\d*?)0+$/, '$1')}`;
}

type Detail = Awaited<ReturnType<typeof loader>>['account'];

const STATUS_TONE = { active: 'active', suspended: 'revoked' } as const;
const percent = (rate: number) => `${(rate * 100).toLocaleString('en-GB', { maximumFractionDigits: 1 })} %`;

function Actions({ account, result }: { account: Detail; result: OperatorFormResult }) {
  const refundable = account.purchases.filter((purchase) => !purchase.refunded);
  const products = account.products.filter((product) => product.status !== 'archived');
  return (
    <section className="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <div className="grid grid--two">
        <OperatorForm
          form="credits"
          title="Grant or deduct credits"
          result={result}
          fields={(errors) => (
            <Field
              label="Credits (+ to grant, − to deduct)"
              name="delta"
              inputId="credits-delta"
              inputMode="numeric"
              required
              autoComplete="off"
              hint={`The balance is ${account.credits.toLocaleString('en-GB')}; it cannot go below 0.`}
              error={errors.delta}
            />
          )}
          buttons={(busy) => (
            <button type="submit" className="button button--primary" disabled={busy}>
              {busy ? 'Changing…' : 'Change credits'}
            </button>
          )}
        />
        <OperatorForm
          form="ad-funds"
          title="Adjust ad funds"
          result={result}
          fields={(errors) => (
            <Field
              label="Dollars (+ to add, − to take)"
              name="delta_dollars"
              inputId="ad-funds-delta"
              inputMode="decimal"
              required
              autoComplete="off"
              hint={`Ad funds are ${formatCents(account.ad_funds_cents)}; they cannot go below $0.`}
              error={errors.delta_dollars}
            />
          )}
          buttons={(busy) => (
            <button type="submit" className="button button--primary" disabled={busy}>
              {busy ? 'Changing…' : 'Change ad funds'}
            </button>
          )}
        />
        <OperatorForm
          form="suspension"
          title={account.status === 'active' ? 'Suspend the account' : 'Restore the account'}
          result={result}
          buttons={(busy) =>
            account.status === 'active' ? (
              <button type="submit" name="intent" value="suspend" className="button button--danger" disabled={busy}>
                {busy ? 'Suspending…' : 'Suspend account'}
              </button>
            ) : (
              <button type="submit" name="intent" value="unsuspend" className="button button--primary" disabled={busy}>
                {busy ? 'Restoring…' : 'Unsuspend account'}
              </button>
            )
          }
        />
        {refundable.length > 0 ? (
          <OperatorForm
            form="refund"
            title="Refund a purchase"
            result={result}
            fields={(errors) => (
              <OperatorSelect
                id="refund-transaction"
                name="transaction_id"
                label="Purchase"
                error={errors.transaction_id}
                options={refundable.map((purchase) => ({
                  value: purchase.id,
                  label: `${purchase.delta} credits on ${formatTimestamp(purchase.created_at)} (${purchase.id})`,
                }))}
              />
            )}
            buttons={(busy) => (
              <button type="submit" className="button button--danger" disabled={busy}>
                {busy ? 'Refunding…' : 'Refund purchase'}
              </button>
            )}
          />
        ) : (
          <div className="stack">
            <h3>Refund a purchase</h3>
            <EmptyState>
              No purchase to refund: the account bought no credits, or every purchase was refunded.
            </EmptyState>
            <OperatorMessage form="refund" result={result} />
          </div>
        )}
        {products.length > 0 ? (
          <OperatorForm
            form="product"
            title="Review a sponsored product"
            result={result}
            fields={() => (
              <OperatorSelect
                id="product-id"
                name="product_id"
                label="Product"
                options={products.map((product) => ({
                  value: product.id,
                  label: `${product.name} by ${product.brand} (${product.status})`,
                }))}
              />
            )}
            buttons={(busy) => (
              <>
                <button type="submit" name="intent" value="reject" className="button button--danger" disabled={busy}>
                  Reject product
                </button>
                <button type="submit" name="intent" value="restore" className="button" disabled={busy}>
                  Restore product
                </button>
              </>
            )}
          />
        ) : (
          <div className="stack">
            <h3>Review a sponsored product</h3>
            <EmptyState>This account advertises no products.</EmptyState>
          </div>
        )}
        {account.campaigns.length > 0 ? (
          <OperatorForm
            form="invalid-traffic"
            title="Declare ad traffic invalid"
            result={result}
            fields={(errors) => (
              <>
                <OperatorSelect
                  id="invalid-traffic-campaign"
                  name="campaign_id"
                  label="Campaign"
                  options={account.campaigns.map((campaign) => ({
                    value: campaign.id,
                    label: `${campaign.name} (${campaign.impressions.toLocaleString('en-GB')} billed, ${campaign.invalid_impressions.toLocaleString('en-GB')} invalid)`,
                  }))}
                  error={errors.id}
                />
                <Field
                  label="Day (UTC)"
                  name="date"
                  type="date"
                  inputId="invalid-traffic-date"
                  required
                  defaultValue={new Date().toISOString().slice(0, 10)}
                  error={errors.date}
                />
                <Field
                  label="Client address (optional)"
                  name="address"
                  inputId="invalid-traffic-address"
                  autoComplete="off"
                  hint="Only this IPv4 or IPv6 address’s impressions; blank: the whole day."
                  error={errors.address}
                />
              </>
            )}
            buttons={(busy) => (
              <button type="submit" className="button button--danger" disabled={busy}>
                {busy ? 'Declaring…' : 'Refund as invalid traffic'}
              </button>
            )}
          />
        ) : (
          <div className="stack">
            <h3>Declare ad traffic invalid</h3>
            <EmptyState>This account runs no campaigns.</EmptyState>
          </div>
        )}
      </div>
    </section>
  );
}

export default function OperatorAccount() {
  const { account } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as OperatorFormResult;
  return (
    <>
      <header className="page-header operator-heading">
        <p className="eyebrow">
          <Link to="/admin">Operator console</Link>
        </p>
        <h1>{account.name}</h1>
        <p className="lead">
          <code>{account.id}</code> · owner {account.owner_email} · created {formatTimestamp(account.created_at)} UTC ·{' '}
          <Badge tone={STATUS_TONE[account.status]}>{account.status}</Badge>
        </p>
      </header>

      <section className="card" aria-labelledby="balances-title">
        <h2 id="balances-title">Balances</h2>
        <dl className="stat-grid">
          <div className="stat">
            <dt>Credits</dt>
            <dd>{account.credits.toLocaleString('en-GB')}</dd>
          </div>
          <div className="stat">
            <dt>Ad funds</dt>
            <dd>{formatCents(account.ad_funds_cents)}</dd>
          </div>
          <div className="stat">
            <dt>Earnings available</dt>
            <dd>{formatCents(account.earnings.available_cents)}</dd>
          </div>
          <div className="stat">
            <dt>Earnings held</dt>
            <dd>{formatCents(account.earnings.pending_cents)}</dd>
          </div>
          <div className="stat">
            <dt>Payouts requested</dt>
            <dd>{formatCents(account.earnings.requested_cents)}</dd>
          </div>
          <div className="stat">
            <dt>Paid out</dt>
            <dd>{formatCents(account.earnings.paid_cents)}</dd>
          </div>
          <div className="stat">
            <dt>Failed jobs</dt>
            <dd>{account.failed_jobs.toLocaleString('en-GB')}</dd>
          </div>
        </dl>
      </section>

      <Actions account={account} result={result} />

      <section className="card" aria-labelledby="ledger-title">
        <h2 id="ledger-title">Credit ledger (latest 20)</h2>
        <TransactionsTable transactions={account.ledger} hasMore={false} basePath="" paged={false} />
      </section>

      <section className="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <DataTable rows={account.members} columns={['E-mail', 'Role', 'E-mail confirmed']} empty="No members.">
          {(member) => (
            <tr key={member.user_id}>
              <td data-label="E-mail">{member.email}</td>
              <td data-label="Role">{humanize(member.role)}</td>
              <td data-label="E-mail confirmed">{member.email_verified ? 'Yes' : 'No'}</td>
            </tr>
          )}
        </DataTable>
      </section>

      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <DataTable
          rows={account.keys}
          columns={['Name', 'Key', 'Mode', 'Created (UTC)', 'Last used (UTC)', 'Revoked (UTC)']}
          empty="No API keys."
        >
          {(key) => (
            <tr key={key.id}>
              <td data-label="Name">{key.name}</td>
              <td data-label="Key">
                <code>{key.prefix}…</code>
              </td>
              <td data-label="Mode">
                <Badge tone={key.mode}>{key.mode}</Badge>
              </td>
              <td data-label="Created (UTC)">{formatTimestamp(key.created_at)}</td>
              <td data-label="Last used (UTC)">{key.last_used_at ? formatTimestamp(key.last_used_at) : 'Never'}</td>
              <td data-label="Revoked (UTC)">{key.revoked_at ? formatTimestamp(key.revoked_at) : '—'}</td>
            </tr>
          )}
        </DataTable>
      </section>

      <section className="card" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Webhooks</h2>
        <DataTable
          rows={account.webhooks}
          columns={[
            'API key',
            { name: 'Deliveries', className: 'data-table__number' },
            { name: 'Failure rate', className: 'data-table__number' },
          ]}
          empty="No webhook deliveries."
        >
          {(webhook) => (
            <tr key={webhook.key_id}>
              <td data-label="API key">
                {account.keys.find((key) => key.id === webhook.key_id)?.name ?? `Key ${webhook.key_id}`}
              </td>
              <td data-label="Deliveries" className="data-table__number">
                {webhook.deliveries.toLocaleString('en-GB')}
              </td>
              <td data-label="Failure rate" className="data-table__number">
                {percent(webhook.failure_rate)}
              </td>
            </tr>
          )}
        </DataTable>
      </section>

      <section className="card" aria-labelledby="jobs-title">
        <h2 id="jobs-title">Recent jobs ({account.failed_jobs.toLocaleString('en-GB')} failed in all)</h2>
        <DataTable
          rows={account.recent_jobs}
          columns={['Job', 'Operation', 'Status', 'Error', 'Created (UTC)']}
          empty="No jobs."
        >
          {(job) => (
            <tr key={job.id}>
              <td data-label="Job">
                <code>{job.id}</code>
              </td>
              <td data-label="Operation">{humanize(job.operation)}</td>
              <td data-label="Status">{job.status}</td>
              <td data-label="Error">{job.error_code ? <code>{job.error_code}</code> : '—'}</td>
              <td data-label="Created (UTC)">{formatTimestamp(job.created_at)}</td>
            </tr>
          )}
        </DataTable>
      </section>

      <section className="card" aria-labelledby="ads-title">
        <h2 id="ads-title">Advertising</h2>
        <h3>Campaigns</h3>
        <DataTable
          rows={account.campaigns}
          columns={[
            'Campaign',
            'Status',
            { name: 'Spent', className: 'data-table__number' },
            'Impressions',
            'Unbilled',
            'Invalid',
          ]}
          empty="No campaigns."
        >
          {(campaign) => (
            <tr key={campaign.id}>
              <td data-label="Campaign">{campaign.name}</td>
              <td data-label="Status">{campaign.status}</td>
              <td data-label="Spent" className="data-table__number">
                {formatCents(campaign.spent_cents)} of {formatCents(campaign.total_budget_cents)}
              </td>
              <td data-label="Impressions">{campaign.impressions.toLocaleString('en-GB')}</td>
              <td data-label="Unbilled">{campaign.unbilled_impressions.toLocaleString('en-GB')}</td>
              <td data-label="Invalid">{campaign.invalid_impressions.toLocaleString('en-GB')}</td>
            </tr>
          )}
        </DataTable>
        <h3>Products</h3>
        <DataTable rows={account.products} columns={['Product', 'Brand', 'Status']} empty="No products.">
          {(product) => (
            <tr key={product.id}>
              <td data-label="Product">
                {product.name} <code className="data-table__reference">{product.id}</code>
              </td>
              <td data-label="Brand">{product.brand}</td>
              <td data-label="Status">{product.status}</td>
            </tr>
          )}
        </DataTable>
        <h3>Ad funds ledger (latest 20)</h3>
        <DataTable
          rows={account.ad_funds_ledger}
          columns={['Date (UTC)', 'What', { name: 'Amount', className: 'data-table__number' }]}
          empty="No ad funds movements."
        >
          {(entry) => (
            <tr key={entry.id}>
              <td data-label="Date (UTC)">{formatTimestamp(entry.created_at)}</td>
              <td data-label="What">{humanize(entry.reason)}</td>
              <td data-label="Amount" className="data-table__number">
                {formatCents(Math.trunc(entry.delta_millicents / 1000))}
              </td>
            </tr>
          )}
        </DataTable>
      </section>

      <section className="card" aria-labelledby="payouts-title">
        <h2 id="payouts-title">Payout requests</h2>
        <DataTable
          rows={account.payouts}
          columns={['Requested (UTC)', { name: 'Amount', className: 'data-table__number' }, 'Status', 'Paid (UTC)']}
          empty="No payouts requested."
        >
          {(payout) => (
            <tr key={payout.id}>
              <td data-label="Requested (UTC)">{formatTimestamp(payout.created_at)}</td>
              <td data-label="Amount" className="data-table__number">
                {formatCents(payout.amount_cents)}
              </td>
              <td data-label="Status">{payout.status}</td>
              <td data-label="Paid (UTC)">{payout.paid_at ? formatTimestamp(payout.paid_at) : '—'}</td>
            </tr>
          )}
        </DataTable>
        <p>
          <Link to="/admin/payouts?status=requested">Payouts to pay, of every account</Link>
        </p>
      </section>

      <section className="card" aria-labelledby="audit-title">
        <h2 id="audit-title">Audit log (latest 20)</h2>
        <AuditTable entries={account.audit_log} empty="Nothing recorded yet." />
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
