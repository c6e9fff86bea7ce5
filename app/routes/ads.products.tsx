import {
  type ActionFunctionArgs,
  json,
  type LoaderFunctionArgs,
  type MetaFunction,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
} from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { useState } from 'react';
import { ProductPreview } from '../components/ads/product-preview.js';
import { Alert } from '../components/alert.js';
import { Badge } from '../components/badge.js';
import { DataTable } from '../components/data-table.js';
import { Field } from '../components/field.js';
import { PauseResumeAction, RowAction } from '../components/row-action.js';
import { formChoices } from '../utils/ads-forms.server.js';
import { describeFormFailure, fieldFailure, formText, unknownIntent } from '../utils/forms.server.js';
import { formatTimestamp, humanize } from '../utils/format.js';
import { pageMeta } from '../utils/meta.js';
import { requireAccount } from '../utils/session.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Products · Advertise · Roomstage', 'Upload the products you advertise in staged listing photos.');

/** The API's limit for a product picture; the form refuses a larger file before any procedure runs. */
const MAX_PRODUCT_BYTES = 5 * 1024 * 1024;
const SHOWN_FIELDS = ['image', 'name', 'brand', 'category', 'room_types', 'styles'];

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const [{ products }, catalog] = await Promise.all([context.trpc.ads.listProducts(), context.trpc.staging.styles()]);
  return { products, catalog };
}

async function readForm(request: Request): Promise<FormData | null> {
  if (!(request.headers.get('content-type') ?? '').startsWith('multipart/form-data')) return request.formData();
  try {
    return await unstable_parseMultipartFormData(
      request,
      unstable_createMemoryUploadHandler({ maxPartSize: MAX_PRODUCT_BYTES }),
    );
  } catch {
    return null;
  }
}

export async function action({ context, request }: ActionFunctionArgs) {
  await requireAccount(context, request);
  const form = await readForm(request);
  if (!form)
    return json(
      { intent: 'create', ...fieldFailure({ image: 'The picture is larger than 5 MB. Choose a smaller file.' }) },
      { status: 413 },
    );
  const intent = formText(form, 'intent');
  try {
    switch (intent) {
      case 'create': {
        const catalog = await context.trpc.staging.styles();
        const picture = form.get('image');
        const fieldErrors: Record<string, string> = {};
        if (!(picture instanceof Blob) || picture.size === 0) fieldErrors.image = 'Choose the product picture.';
        const name = (formText(form, 'name') ?? '').trim();
        const brand = (formText(form, 'brand') ?? '').trim();
        if (!name) fieldErrors.name = 'Enter the product’s name.';
        if (!brand) fieldErrors.brand = 'Enter the brand.';
        const category = formText(form, 'category') ?? '';
        const categories: readonly string[] = catalog.product_categories;
        if (!categories.includes(category)) fieldErrors.category = 'Choose what kind of product it is.';
        const roomTypes = formChoices(form, 'room_types', catalog.room_types);
        if (roomTypes.length === 0) fieldErrors.room_types = 'Choose at least one room the product suits.';
        const styles = formChoices(form, 'styles', catalog.styles);
        if (Object.keys(fieldErrors).length > 0 || !(picture instanceof Blob))
          return json({ intent, ...fieldFailure(fieldErrors) }, { status: 400 });
        const created = await context.trpc.ads.createProduct({
          image: Buffer.from(await picture.arrayBuffer()).toString('base64'),
          name,
          brand,
          category: category as (typeof catalog.product_categories)[number],
          room_types: roomTypes,
          styles,
        });
        return json({ intent, done: `“${created.name}” is uploaded and active.` } as const, { status: 201 });
      }
      case 'pause':
      case 'resume': {
        const product = await context.trpc.ads.updateProduct({
          id: formText(form, 'id') ?? '',
          status: intent === 'pause' ? 'paused' : 'active',
        });
        return json({
          intent,
          done: `“${product.name}” is ${intent === 'pause' ? 'paused: it is not placed in new images' : 'active again'}.`,
        } as const);
      }
      case 'archive': {
        const product = await context.trpc.ads.archiveProduct({ id: formText(form, 'id') ?? '' });
        return json({
          intent,
          done: `“${product.name}” is archived. Images that already show it keep it.`,
        } as const);
      }
      default:
        return unknownIntent();
    }
  } catch (error) {
    const failure = describeFormFailure(context, error, intent === 'create' ? SHOWN_FIELDS : []);
    return json({ intent, ...failure }, { status: failure.status });
  }
}

function Choices(props: { legend: string; name: string; values: readonly string[]; hint?: string; error?: string }) {
  return (
    <fieldset className={`field choices${props.error ? ' field--invalid' : ''}`}>
      <legend className="field__label">{props.legend}</legend>
      {props.hint ? <p className="field__hint">{props.hint}</p> : null}
      <div className="choices__options">
        {props.values.map((value) => (
          <label key={value} className="choice">
            <input type="checkbox" name={props.name} value={value} /> {humanize(value)}
          </label>
        ))}
      </div>
      {props.error ? <p className="field__error">{props.error}</p> : null}
    </fieldset>
  );
}

export default function Products() {
  const { products, catalog } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === 'submitting' ? navigation.formData?.get('intent') : null;
  const failure = result && 'formError' in result ? result : null;
  const done = result && 'done' in result ? result.done : null;
  const errorFor = (field: string) =>
    failure?.intent === 'create' ? (failure.fieldErrors as Record<string, string>)[field] : undefined;
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Advertise</p>
        <h1>Products</h1>
        <p className="lead">
          Products you upload can be placed in staged listing photos. They are shown once a{' '}
          <Link to="/ads/campaigns">campaign</Link> pays for them.
        </p>
      </header>

      <div aria-live="polite" className="stack">
        {failure && failure.intent !== 'create' ? <Alert tone="error">{failure.formError}</Alert> : null}
        {done ? <Alert tone="success">{done}</Alert> : null}
      </div>

      <section className="card" aria-labelledby="upload-title">
        <h2 id="upload-title">Upload a product</h2>
        {failure?.intent === 'create' ? <Alert tone="error">{failure.formError}</Alert> : null}
        <Form method="post" encType="multipart/form-data" className="stack product-form">
          <input type="hidden" name="intent" value="create" />
          <div className={`field${errorFor('image') ? ' field--invalid' : ''}`}>
            <label htmlFor="field-image" className="field__label">
              Product picture
            </label>
            <input
              id="field-image"
              name="image"
              type="file"
              className="input"
              accept="image/png,image/webp"
              aria-describedby="field-image-hint"
              aria-invalid={errorFor('image') ? true : undefined}
              onChange={(event) => setFile(event.currentTarget.files?.[0] ?? null)}
            />
            <p id="field-image-hint" className="field__hint">
              A cut-out: PNG or WebP with a transparent background, up to 5 MB, 200–4 000 px a side.
            </p>
            {errorFor('image') ? <p className="field__error">{errorFor('image')}</p> : null}
          </div>
          <ProductPreview file={file} name={name} />
          <Field
            label="Name"
            name="name"
            maxLength={80}
            error={errorFor('name')}
            onChange={(event) => setName(event.currentTarget.value)}
          />
          <Field label="Brand" name="brand" maxLength={80} error={errorFor('brand')} />
          <div className={`field${errorFor('category') ? ' field--invalid' : ''}`}>
            <label htmlFor="field-category" className="field__label">
              Category
            </label>
            <select id="field-category" name="category" className="input" defaultValue="">
              <option value="" disabled>
                Choose a category
              </option>
              {catalog.product_categories.map((category) => (
                <option key={category} value={category}>
                  {humanize(category)}
                </option>
              ))}
            </select>
            {errorFor('category') ? <p className="field__error">{errorFor('category')}</p> : null}
          </div>
          <Choices legend="Room types" name="room_types" values={catalog.room_types} error={errorFor('room_types')} />
          <Choices
            legend="Styles"
            name="styles"
            values={catalog.styles}
            hint="None chosen: the product suits any style."
            error={errorFor('styles')}
          />
          <button type="submit" className="button button--primary" disabled={busy === 'create'}>
            {busy === 'create' ? 'Uploading…' : 'Upload product'}
          </button>
        </Form>
      </section>

      <section className="card" aria-labelledby="products-title">
        <h2 id="products-title">Your products</h2>
        <DataTable
          rows={products}
          columns={['Picture', 'Product', 'Category', 'Status', 'Added (UTC)', { name: 'Actions', hidden: true }]}
          empty="No products yet. Upload a cut-out above, then start a campaign for it."
        >
          {(product) => (
            <tr key={product.id}>
              <td>
                {product.image_url ? (
                  <img src={product.image_url} alt={product.name} className="product-thumb" loading="lazy" />
                ) : null}
              </td>
              <td>
                <strong>{product.name}</strong>
                <br />
                <span className="muted">{product.brand}</span>
              </td>
              <td>{humanize(product.category)}</td>
              <td>
                <Badge tone={product.status === 'active' ? 'active' : 'revoked'}>{product.status}</Badge>
              </td>
              <td>{formatTimestamp(product.created_at)}</td>
              <td>
                {product.status === 'active' || product.status === 'paused' ? (
                  <div className="inline-actions">
                    <PauseResumeAction id={product.id} status={product.status} rowName={product.name} />
                    <RowAction id={product.id} intent="archive" label="Archive" rowName={product.name} ghost />
                  </div>
                ) : null}
              </td>
            </tr>
          )}
        </DataTable>
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
