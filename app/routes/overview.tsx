import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { Badge } from '../components/badge.js';
import { RedeemedClaimCells } from '../components/claims/redeemed-claim-cells.js';
import { DataTable } from '../components/data-table.js';
import { DISCLOSURE_TEXT, DISCLOSURES, isDisclosure } from '../components/disclosure.js';
import { formatTimestamp } from '../utils/format.js';
import { describeFormFailure, formText } from '../utils/forms.server.js';
import { requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Overview · Roomstage',
    'Your Roomstage account at a glance: what it stages, the claims it collected and the ads it runs.',
  );

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
  const [
    billing,
    notifications,
    { keys },
    { claims: issued },
    { claims: redeemed },
    capabilities,
    staging,
    earnings,
    { products },
    { campaigns },
    funds,
  ] = await Promise.all([
    context.trpc.billing.overview(),
    context.trpc.settings.notifications(),
    context.trpc.keys.list(),
    context.trpc.claims.list({ role: 'issued' }),
    context.trpc.claims.list({ role: 'redeemed' }),
    context.trpc.staging.capabilities(),
    context.trpc.settings.staging(),
    context.trpc.earnings.report({}),
    context.trpc.ads.listProducts(),
    context.trpc.ads.listCampaigns(),
    context.trpc.ads.funds({ limit: 1 }),
  ]);
  const activeKeys = keys.filter((key) => key.status === 'active');
  const lastUsed =
    activeKeys
      .map((key) => key.last_used_at)
      .filter((at): at is string => at !== null)
      .sort()
      .at(-1) ?? null;
  // What the account does decides what comes first; one account can stage, redeem and advertise at once.
  const does = {
    stages: keys.length > 0 || issued.length > 0,
    redeems: redeemed.length > 0,
    advertises: products.length > 0 || campaigns.length > 0 || funds.balance_cents > 0,
  };
  return {
    email: account.email,
    does,
    redeemedClaims: redeemed.slice(0, RECENT),
    earnings: { availableCents: earnings.available_cents, paidCents: earnings.paid_cents },
    ads: {
      products: products.filter((product) => product.status !== 'archived').length,
      activeCampaigns: campaigns.filter((campaign) => campaign.status === 'active').length,
      campaigns: campaigns.length,
      fundsCents: funds.balance_cents,
    },
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

type OverviewData = ReturnType<typeof useLoaderData<typeof loader>>;

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/**
 * The account's home, fitted to what it does: staging (balance, keys, claims issued, the engine), collecting claims
 * (the claims redeemed and their ad earnings) or advertising (products, campaigns, funds), each that applies, in that
 * order. A brand-new account is shown how to start instead, never that it is out of credits.
 */
export default function Overview() {
  const data = useLoaderData<typeof loader>();
  const { email, does } = data;
  const isNew = !does.stages && !does.redeems && !does.advertises;
  const roles = [does.stages && 'stages photos', does.redeems && 'collects claims', does.advertises && 'advertises']
    .filter(Boolean)
    .join(', ');
  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Overview</p>
        <h1>{isNew ? 'Welcome to Roomstage' : 'Overview'}</h1>
        <p className="lead">
          Signed in as <strong>{email}</strong>.{' '}
          {isNew ? 'Here is how to start.' : `This account ${roles}: what matters to it, at a glance.`}
        </p>
      </header>
      {isNew ? <GetStarted /> : null}
      {does.stages ? <StagingOverview data={data} /> : null}
      {does.redeems ? <ClaimsOverview data={data} /> : null}
      {does.advertises ? <AdsOverview data={data} /> : null}
      {isNew ? null : <AlsoPossible does={does} />}
    </>
  );
}

function GetStarted() {
  return (
    <div className="grid grid--three" data-testid="get-started">
      <section className="card" aria-labelledby="start-stage">
        <h2 id="start-stage">Stage photos</h2>
        <p>
          For staging companies and developers. Create an API key: the account’s first key comes with{' '}
          <strong>10 free credits</strong>, one staged photo each. Then stage a photo in the playground or from your
          code.
        </p>
        <p className="actions">
          <Link to="/keys" className="button button--small">
            Create your first key
          </Link>
          <a href="/docs" className="button button--ghost button--small">
            API docs
          </a>
        </p>
      </section>
      <section className="card" aria-labelledby="start-claim">
        <h2 id="start-claim">Collect staged photos</h2>
        <p>
          For estate agents. Your staging company gave you a claim code: redeem it to receive the photos, free, and earn
          from the ads shown in them.
        </p>
        <p className="actions">
          <Link to="/claims" className="button button--small">
            Redeem a code
          </Link>
        </p>
      </section>
      <section className="card" aria-labelledby="start-ads">
        <h2 id="start-ads">Advertise products</h2>
        <p>For brands. Upload a product picture, fund a campaign, and it is placed in staged photos.</p>
        <p className="actions">
          <Link to="/ads/products" className="button button--small">
            Add a product
          </Link>
        </p>
      </section>
    </div>
  );
}

function StagingOverview({ data }: { data: OverviewData }) {
  const { balance, keys, recentClaims, issuedCount, engine, defaultDisclosure } = data;
  const saved = useActionData<typeof action>();
  const saving = useNavigation().state === 'submitting';
  // Auto top-up refills below its own threshold, so a low balance only needs action without it.
  const low = balance.credits < balance.lowBalanceThreshold && !balance.autoTopUp;
  return (
    <>
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
    </>
  );
}

function ClaimsOverview({ data }: { data: OverviewData }) {
  const { redeemedClaims, redeemedCount, earnings } = data;
  return (
    <section className="card" aria-labelledby="claims-title">
      <h2 id="claims-title">Your claims</h2>
      <div className="stats">
        <div className="stat">
          <p className="stat__label">Claims redeemed</p>
          <p className="stat__value">{redeemedCount}</p>
        </div>
        <div className="stat">
          <p className="stat__label">Ad earnings to pay out</p>
          <p className="stat__value">{dollars(earnings.availableCents)}</p>
          <p className="muted">{dollars(earnings.paidCents)} paid out so far.</p>
        </div>
      </div>
      <DataTable rows={redeemedClaims} columns={['Claim', 'Images', 'Redeemed (UTC)']} empty="No claims yet.">
        {(claim) => (
          <tr key={claim.claim_code}>
            <RedeemedClaimCells claim={claim} />
          </tr>
        )}
      </DataTable>
      <p className="actions">
        <Link to="/gallery" className="button button--small">
          Your images
        </Link>
        <Link to="/earnings" className="button button--ghost button--small">
          Earnings
        </Link>
        <Link to="/claims" className="button button--ghost button--small">
          Redeem another code
        </Link>
      </p>
    </section>
  );
}

function AdsOverview({ data }: { data: OverviewData }) {
  const { ads } = data;
  return (
    <section className="card" aria-labelledby="ads-title">
      <h2 id="ads-title">Your ads</h2>
      <div className="stats">
        <div className="stat">
          <p className="stat__label">Products</p>
          <p className="stat__value">{ads.products}</p>
        </div>
        <div className="stat">
          <p className="stat__label">Active campaigns</p>
          <p className="stat__value">
            {ads.activeCampaigns} <span className="stat__unit">of {ads.campaigns}</span>
          </p>
        </div>
        <div className="stat">
          <p className="stat__label">Ad funds</p>
          <p className="stat__value">{dollars(ads.fundsCents)}</p>
        </div>
      </div>
      {ads.campaigns === 0 ? <p>A product is placed in staged photos once a funded campaign runs it.</p> : null}
      <p className="actions">
        <Link to="/ads/campaigns" className="button button--small">
          Campaigns
        </Link>
        <Link to="/ads/products" className="button button--ghost button--small">
          Products
        </Link>
        <Link to="/ads/funds" className="button button--ghost button--small">
          Funds
        </Link>
        <Link to="/ads/report" className="button button--ghost button--small">
          Report
        </Link>
      </p>
    </section>
  );
}

/** What else the account could do, in a line each: the other roles, one click away. */
function AlsoPossible({ does }: { does: OverviewData['does'] }) {
  const items = [
    does.stages ? null : (
      <li key="stage">
        <Link to="/keys">Stage photos yourself</Link>: the account’s first API key comes with 10 free credits.
      </li>
    ),
    does.redeems ? null : (
      <li key="claim">
        <Link to="/claims">Redeem a claim code</Link> a staging company gave you, to collect its photos.
      </li>
    ),
    does.advertises ? null : (
      <li key="ads">
        <Link to="/ads/products">Advertise a product</Link> in staged photos.
      </li>
    ),
  ].filter(Boolean);
  if (items.length === 0) return null;
  return (
    <section className="card" aria-labelledby="also-title">
      <h2 id="also-title">Also with this account</h2>
      <ul className="link-list">{items}</ul>
    </section>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
