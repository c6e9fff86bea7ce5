import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { Alert } from '../components/alert.js';
import { RedeemedClaimCells } from '../components/claims/redeemed-claim-cells.js';
import { DataTable } from '../components/data-table.js';
import { Field } from '../components/field.js';
import { formatTimestamp } from '../utils/format.js';
import { describeFormFailure, formText, unknownIntent } from '../utils/forms.server.js';
import { readIntentForm, requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Redeem a claim · Roomstage',
    'Redeem a claim code from an agent to add their staged images to your Roomstage account.',
  );

const STATUS_TEXT = { unredeemed: 'Ready to redeem', redeemed: 'Already redeemed', expired: 'Expired' } as const;

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const { claims } = await context.trpc.claims.list({ role: 'redeemed' });
  return { claims };
}

/** Two steps on one page: preview the code (image count, expiry), then redeem it. */
export async function action({ context, request }: ActionFunctionArgs) {
  const { form, intent } = await readIntentForm(context, request);
  const code = formText(form, 'code')?.trim() ?? '';
  try {
    if (intent === 'preview') return json({ intent, preview: await context.trpc.claims.preview({ code }) } as const);
    if (intent === 'redeem') return json({ intent, redeemed: await context.trpc.claims.redeem({ code }) } as const);
    return unknownIntent();
  } catch (error) {
    const failure = describeFormFailure(context, error, ['code']);
    // An unknown code is about the field the agent typed, not the page.
    if (failure.status === 404)
      failure.fieldErrors.code = 'No claim has this code. Check it against the one you were given.';
    return json({ intent, typed: code, ...failure }, { status: failure.status });
  }
}

export default function Claims() {
  const { claims } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const pending = navigation.state === 'submitting' ? navigation.formData?.get('intent') : null;

  const preview = result && 'preview' in result ? result.preview : null;
  const redeemed = result && 'redeemed' in result ? result.redeemed : null;
  const failure = result && 'formError' in result ? result : null;
  // After "Check code", keyboard and screen-reader users land on the preview and its Redeem button.
  const previewCard = useRef<HTMLElement>(null);
  useEffect(() => {
    if (preview && !redeemed) previewCard.current?.focus();
  }, [preview, redeemed]);

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Agents</p>
        <h1>Redeem a claim</h1>
        <p className="lead">
          Your staging company gives you a claim code such as <code>RS-7K3M9QXD</code> with each set of staged photos.
          Redeem it to move the images into <Link to="/gallery">your gallery</Link>. Redeeming is free; codes expire 30
          days after they are issued.
        </p>
      </header>

      <div aria-live="polite" className="stack">
        {redeemed ? (
          <Alert tone="success" title={`Claim ${redeemed.claim_code} redeemed`}>
            {redeemed.image_count} image{redeemed.image_count === 1 ? ' is' : 's are'} now in your gallery.{' '}
            <Link to="/gallery" className="button button--primary button--small">
              View and download your images
            </Link>
          </Alert>
        ) : null}
        {failure && !failure.fieldErrors.code ? <Alert tone="error">{failure.formError}</Alert> : null}
      </div>

      <section className="card card--narrow" aria-labelledby="claim-code-title">
        <h2 id="claim-code-title">Enter the code</h2>
        <Form method="post" className="stack">
          <input type="hidden" name="intent" value="preview" />
          <Field
            label="Claim code"
            name="code"
            className="input input--code"
            required
            maxLength={64}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            placeholder="RS-7K3M9QXD"
            defaultValue={preview?.code ?? (failure && 'typed' in failure ? failure.typed : '')}
            hint="Upper or lower case, with or without the hyphen."
            error={failure?.fieldErrors.code}
          />
          <button type="submit" className="button button--primary" disabled={pending === 'preview'}>
            {pending === 'preview' ? 'Checking…' : 'Check code'}
          </button>
        </Form>
      </section>

      {preview && !redeemed ? (
        <section ref={previewCard} className="card card--highlight" aria-labelledby="claim-preview-title" tabIndex={-1}>
          <h2 id="claim-preview-title">
            Claim <code>{preview.code}</code>
          </h2>
          <dl className="result-facts">
            <div>
              <dt>Status</dt>
              <dd>{STATUS_TEXT[preview.status]}</dd>
            </div>
            <div>
              <dt>Images</dt>
              <dd>{preview.image_count}</dd>
            </div>
            <div>
              <dt>Expires (UTC)</dt>
              <dd>
                {formatTimestamp(preview.expires_at)}
                {preview.valid
                  ? ` (in ${preview.days_until_expiry} day${preview.days_until_expiry === 1 ? '' : 's'})`
                  : null}
              </dd>
            </div>
          </dl>
          {preview.valid ? (
            <Form method="post">
              <input type="hidden" name="intent" value="redeem" />
              <input type="hidden" name="code" value={preview.code} />
              <button type="submit" className="button button--primary" disabled={pending === 'redeem'}>
                {pending === 'redeem'
                  ? 'Redeeming…'
                  : `Redeem ${preview.image_count} image${preview.image_count === 1 ? '' : 's'}`}
              </button>
            </Form>
          ) : (
            <p className="muted">
              This claim can no longer be redeemed
              {preview.status === 'expired'
                ? ': it expired. Ask your staging company for a new code.'
                : ': it was redeemed already. Its images are in the gallery of the account that redeemed it.'}
            </p>
          )}
        </section>
      ) : null}

      <section className="card" aria-labelledby="redeemed-title">
        <h2 id="redeemed-title">Claims you redeemed</h2>
        <DataTable
          rows={claims}
          columns={['Code', 'Images', 'Redeemed (UTC)', { name: 'Actions', hidden: true }]}
          empty="None yet. Enter the code from your staging company above to collect your first images."
        >
          {(claim) => (
            <tr key={claim.claim_code}>
              <RedeemedClaimCells claim={claim} />
              <td className="cell-actions">
                <Link to="/gallery" className="button button--ghost button--small">
                  View images<span className="visually-hidden"> of claim {claim.claim_code}</span>
                </Link>
              </td>
            </tr>
          )}
        </DataTable>
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
