import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { Badge } from '../components/badge.js';
import { DataTable } from '../components/data-table.js';
import { DISCLOSURE_TEXT, DISCLOSURES, isDisclosure } from '../components/disclosure.js';
import { formatTimestamp } from '../utils/format.js';
import { describeFormFailure, formText } from '../utils/forms.server.js';
import { requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta('Overview · Roomstage', 'Your Roomstage account at a glance: credits, API keys, recent images and claims.');

const RECENT = 5;
const CLAIM_STATUS_TEXT = { unredeemed: 'Waiting for the agent', redeemed: 'Redeemed', expired: 'Expired' } as const;
const ENGINE_TEXT = {
  builtin: 'Built-in (sharp: vector furniture, no network)',
  replicate: 'Replicate',
  openai: 'OpenAI image edits',
  comfyui: 'ComfyUI (self-hosted)',
} as const;

export async function loader({ context, request }: LoaderFunctionArgs) {
  const account = await requireAccount(context, request);
  // The dashboard's landing page: an agent (who may not read the account's keys and billing) lands on the claims.
  if (!(await context.trpc.teams.current()).permissions.includes('read')) throw redirect('/claims');
  const [billing, notifications, { keys }, { claims: issued }, { claims: redeemed }, capabilities, staging] =
    await Promise.all([
      context.trpc.billing.overview(),
      context.trpc.settings.notifications(),
      context.trpc.keys.list(),
      context.trpc.claims.list({ role: 'issued' }),
      context.trpc.claims.list({ role: 'redeemed' }),
      context.trpc.staging.capabilities(),
      context.trpc.settings.staging(),
    ]);
  const activeKeys = keys.filter((key) => key.status === 'active');
  const lastUsed =
    activeKeys
      .map((key) => key.last_used_at)
      .filter((at): at is string => at !== null)
      .sort()
      .at(-1) ?? null;
  return {
    email: account.email,
    balance: {
      credits: billing.credits,
      lowBalanceThreshold: notifications.low_balance_threshold,
      autoTopUp: billing.auto_topup.enabled
        ? { amount: billing.auto_topup.amount, threshold: billing.auto_topup.threshold }
        : null,
    },
    keys: { active: activeKeys.length, total: keys.length, lastUsed },
    recentClaims: issued.slice(0, RECENT),
    issuedCount: issued.length,
    redeemedCount: redeemed.length,
    engine: capabilities,
    defaultDisclosure: staging.disclosure,
  };
}

/** The one setting changed here: the default disclosure profile of staged and decluttered images. */
export async function action({ context, request }: ActionFunctionArgs) {
  await requireAccount(context, request);
  const form = await request.formData();
  const disclosure = formText(form, 'disclosure') ?? '';
  if (!isDisclosure(disclosure)) return json({ formError: 'Choose one of the disclosures offered.' } as const, 400);
  try {
    await context.trpc.settings.updateStaging({ disclosure });
    return json({ done: 'Default disclosure saved.' } as const);
  } catch (error) {
    const failure = describeFormFailure(context, error, []);
    return json(failure, { status: failure.status });
  }
}

/** The staging company's home: balance, keys and what happened lately, with the next step always one click away. */
export default function Overview() {
  const { email, balance, keys, recentClaims, issuedCount, redeemedCount, engine, defaultDisclosure } =
    useLoaderData<typeof loader>();
  const saved = useActionData<typeof action>();
  const saving = useNavigation().state === 'submitting';
  // Auto top-up refills below its own threshold, so a low balance only needs action without it.
  const low = balance.credits < balance.lowBalanceThreshold && !balance.autoTopUp;
  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Staging</p>
        <h1>Overview</h1>
        <p className="lead">
          Signed in as <strong>{email}</strong>. Your balance, keys and latest claims at a glance.
        </p>
      </header>

      {low ? (
        <Alert tone="warning" title={balance.credits === 0 ? 'No credits left' : 'Your balance is low'}>
          <p>
            {balance.credits === 0
              ? 'Staging requests are refused with 402 until you add credits.'
              : `${balance.credits} credit${balance.credits === 1 ? '' : 's'} left, below your alert threshold of ${balance.lowBalanceThreshold}.`}{' '}
            <Link to="/billing">Buy credits or turn on auto top-up</Link>.
          </p>
        </Alert>
      ) : null}

      <div className="stats">
        <section className="card stat" aria-labelledby="stat-balance">
          <h2 id="stat-balance" className="stat__label">
            Balance
          </h2>
          <p className="stat__value">
            {balance.credits} <span className="stat__unit">credit{balance.credits === 1 ? '' : 's'}</span>
          </p>
          <p className="muted">
            {balance.autoTopUp
              ? `Auto top-up adds ${balance.autoTopUp.amount} credits when the balance falls below ${balance.autoTopUp.threshold}.`
              : 'One credit stages one image ($1 each). Auto top-up is off.'}
          </p>
          <Link to="/billing" className="button button--small">
            Billing
          </Link>
        </section>
        <section className="card stat" aria-labelledby="stat-keys">
          <h2 id="stat-keys" className="stat__label">
            API keys
          </h2>
          <p className="stat__value">
            {keys.active} <span className="stat__unit">active</span>
          </p>
          <p className="muted">
            {keys.lastUsed ? (
              <>Last used {formatTimestamp(keys.lastUsed)} UTC.</>
            ) : keys.total === 0 ? (
              'You have no key yet.'
            ) : (
              'Not used yet.'
            )}
          </p>
          <Link to="/keys" className="button button--small">
            {keys.total === 0 ? 'Create your first key' : 'Manage keys'}
          </Link>
        </section>
        <section className="card stat" aria-labelledby="stat-claims">
          <h2 id="stat-claims" className="stat__label">
            Claims issued
          </h2>
          <p className="stat__value">{issuedCount}</p>
          <p className="muted">Each staging request hands you a claim code for the estate agent.</p>
          <Link to="/playground" className="button button--small">
            Try the playground
          </Link>
        </section>
      </div>

      <section className="card" aria-labelledby="recent-title">
        <h2 id="recent-title">Recent activity</h2>
        <DataTable
          rows={recentClaims}
          columns={['Claim', 'Images', 'Status', 'Issued (UTC)']}
          empty={
            <>
              Nothing staged yet.{' '}
              {keys.active === 0 ? (
                <Link to="/keys">Create an API key</Link>
              ) : (
                <Link to="/playground">Stage a photo in the playground</Link>
              )}{' '}
              or follow the <a href="/docs">API docs</a>.
            </>
          }
        >
          {(claim) => (
            <tr key={claim.claim_code}>
              <th scope="row">
                <code className="nowrap">{claim.claim_code}</code>
              </th>
              <td data-label="Images">{claim.image_count}</td>
              <td data-label="Status">
                <Badge tone={claim.status === 'redeemed' ? 'active' : claim.status === 'expired' ? 'revoked' : 'test'}>
                  {CLAIM_STATUS_TEXT[claim.status]}
                </Badge>
                {claim.claimed_by_email ? <span className="muted cell-note">by {claim.claimed_by_email}</span> : null}
              </td>
              <td className="nowrap" data-label="Issued (UTC)">
                {formatTimestamp(claim.created_at)}
              </td>
            </tr>
          )}
        </DataTable>
      </section>

      <section className="card" aria-labelledby="engine-title">
        <h2 id="engine-title">Staging engine</h2>
        <dl className="result-facts">
          <div>
            <dt>Engine</dt>
            <dd>{ENGINE_TEXT[engine.engine]}</dd>
          </div>
          <div>
            <dt>Variations</dt>
            <dd>Up to {engine.max_variations} an image</dd>
          </div>
          <div>
            <dt>Declutter</dt>
            <dd>{engine.declutter ? 'Available' : 'Not with this engine'}</dd>
          </div>
          <div>
            <dt>Default disclosure</dt>
            <dd>{DISCLOSURE_TEXT[defaultDisclosure]}</dd>
          </div>
        </dl>
        {engine.label ? (
          <Form method="post" className="stack">
            <div className="field">
              <label htmlFor="field-disclosure" className="field__label">
                Disclosure on every staged or decluttered image (unless a request says otherwise)
              </label>
              <select id="field-disclosure" name="disclosure" className="input" defaultValue={defaultDisclosure}>
                {DISCLOSURES.map((profile) => (
                  <option key={profile} value={profile}>
                    {DISCLOSURE_TEXT[profile]}
                  </option>
                ))}
              </select>
            </div>
            <p className="actions">
              <button type="submit" className="button button--small" disabled={saving}>
                Save default disclosure
              </button>
            </p>
            <div aria-live="polite">
              {saved && 'done' in saved ? <Alert tone="success">{saved.done}</Alert> : null}
              {saved && 'formError' in saved ? <Alert tone="error">{saved.formError}</Alert> : null}
            </div>
          </Form>
        ) : null}
      </section>

      <div className="grid grid--two">
        <section className="card" aria-labelledby="next-title">
          <h2 id="next-title">Next steps</h2>
          <ul className="link-list">
            <li>
              <Link to="/webhooks">Webhooks</Link>: hear about staged images and redeemed claims as they happen.
            </li>
            <li>
              <Link to="/usage">Usage</Link>: what each key spent, day by day.
            </li>
            <li>
              <a href="/docs">API docs</a>: every endpoint, with examples.
            </li>
          </ul>
        </section>
        <section className="card" aria-labelledby="agent-title">
          <h2 id="agent-title">Estate agent?</h2>
          <p>
            {redeemedCount === 0
              ? 'Redeem the claim code your staging company gave you to collect its photos.'
              : `You redeemed ${redeemedCount} claim${redeemedCount === 1 ? '' : 's'}.`}
          </p>
          <p className="actions">
            <Link to="/claims" className="button button--small">
              Redeem a code
            </Link>
            <Link to="/gallery" className="button button--ghost button--small">
              Your images
            </Link>
          </p>
        </section>
      </div>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
