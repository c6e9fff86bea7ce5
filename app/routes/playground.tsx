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
import { Alert } from '../components/alert.js';
import { CompareSlider } from '../components/compare-slider.js';
import { DISCLOSURE_TEXT, DISCLOSURES, fidelityText, isDisclosure } from '../components/disclosure.js';
import { ChangeOutlines, changeText, type FidelityChange } from '../components/fidelity-changes.js';
import { ApiSnippets } from '../components/playground/api-snippets.js';
import { describeFormFailure, formText } from '../utils/forms.server.js';
import { requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Playground · Roomstage',
    'Try Roomstage in the browser: stage a room photo and copy the matching API request.',
  );

const MAX_UPLOAD_BYTES = 15 * 1024 * 1024;
const words = (value: string) => value.replaceAll('_', ' ');

/** A labelled select of catalogue words (styles, room types), shown with spaces for underscores. */
function WordChoice(props: {
  label: string;
  name: string;
  values: readonly string[];
  value: string;
  onChange: (value: string) => void;
}) {
  const id = `field-${props.name}`;
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {props.label}
      </label>
      <select
        id={id}
        name={props.name}
        className="input"
        value={props.value}
        onChange={(event) => props.onChange(event.currentTarget.value)}
      >
        {props.values.map((value) => (
          <option key={value} value={value}>
            {words(value)}
          </option>
        ))}
      </select>
    </div>
  );
}

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const [options, billing] = await Promise.all([context.trpc.playground.options(), context.trpc.billing.overview()]);
  return { ...options, credits: billing.credits, origin: new URL(request.url).origin };
}

type Fields = 'image' | 'key_id' | 'style' | 'room_type' | 'disclosure';
const SHOWN_FIELDS: Fields[] = ['image', 'key_id', 'style', 'room_type', 'disclosure'];
/** Profiles that draw the mark on the picture: offered only where the engine can draw it. */
const drawsMark = (profile: string) => profile === 'label' || profile === 'ca_ab723';

function failed(formError: string, fieldErrors: Partial<Record<Fields, string>> = {}, status = 400) {
  return json(
    { status, code: 'invalid_request', formError, fieldErrors: fieldErrors as Record<string, string> },
    { status },
  );
}

/** Turns the form into one `playground.stage` call: the same stageImages operation and charge as POST /api/v1/stage. */
export async function action({ context, request }: ActionFunctionArgs) {
  await requireAccount(context, request);
  let form: FormData;
  try {
    form = await unstable_parseMultipartFormData(
      request,
      unstable_createMemoryUploadHandler({ maxPartSize: MAX_UPLOAD_BYTES }),
    );
  } catch {
    return failed(
      'The photo is larger than 15 MB, the limit per image. Choose a smaller one.',
      { image: 'Larger than 15 MB.' },
      413,
    );
  }
  const source = formText(form, 'source');
  const photo = form.get('photo');
  const style = formText(form, 'style') as Parameters<typeof context.trpc.playground.stage>[0]['style'];
  const roomType = formText(form, 'room_type') as Parameters<typeof context.trpc.playground.stage>[0]['room_type'];
  const keyId = Number(formText(form, 'key_id'));
  // Only offered where the engine has them (see the loader's capabilities); the procedure checks again.
  const variations = Number(formText(form, 'variations') ?? '1') || 1;
  const declutter = formText(form, 'declutter') === 'on' ? true : undefined;
  // Empty: the account's default (set on the overview); anything else must be one of the profiles offered.
  const disclosureField = formText(form, 'disclosure') ?? '';
  if (disclosureField !== '' && !isDisclosure(disclosureField))
    return failed('Choose one of the disclosures offered.', { disclosure: 'Not one of the disclosures offered.' });
  const disclosure = disclosureField === '' ? undefined : disclosureField;
  let image: string | undefined;
  if (source === 'upload') {
    if (!(photo instanceof Blob) || photo.size === 0)
      return failed('Choose a photo to upload, or pick a sample instead.', { image: 'No photo chosen.' });
    image = Buffer.from(await photo.arrayBuffer()).toString('base64');
  }
  const sample =
    source === 'upload'
      ? undefined
      : (formText(form, 'sample') as Parameters<typeof context.trpc.playground.stage>[0]['sample']);
  try {
    const staged = await context.trpc.playground.stage({
      key_id: keyId,
      image,
      sample,
      style,
      room_type: roomType,
      variations,
      declutter,
      disclosure,
    });
    return json({ staged, keyId });
  } catch (error) {
    const failure = describeFormFailure(context, error, SHOWN_FIELDS);
    return json({ ...failure, changes: refusedChanges(error) }, { status: failure.status });
  }
}

/** A 422 structure_changed names what changed; the page lists it (the error's extra, when it carries one). */
function refusedChanges(error: unknown): FidelityChange[] {
  let cause: unknown = error;
  for (let depth = 0; depth < 3 && cause && typeof cause === 'object'; depth++) {
    const extra = (cause as { extra?: { changes?: unknown } }).extra;
    if (Array.isArray(extra?.changes)) return extra.changes as FidelityChange[];
    cause = (cause as { cause?: unknown }).cause;
  }
  return [];
}

export default function Playground() {
  const {
    styles,
    room_types: roomTypes,
    samples,
    keys,
    credits,
    origin,
    capabilities,
  } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const staging = navigation.state === 'submitting';
  const staged = result && 'staged' in result ? result.staged : null;
  const failure = result && 'formError' in result ? result : null;
  const refused = failure && 'changes' in failure ? (failure.changes as FidelityChange[]) : [];
  const [source, setSource] = useState<'sample' | 'upload'>('sample');
  const [keyId, setKeyId] = useState<number | undefined>(keys[0]?.id);
  const [style, setStyle] = useState<string>(styles[0] ?? '');
  const [roomType, setRoomType] = useState<string>(roomTypes[0] ?? '');
  const [variations, setVariations] = useState(1);
  const [declutter, setDeclutter] = useState(false);
  const cost = variations * (declutter ? 2 : 1);
  const chosenKey =
    keys.find((key) => key.id === (staged ? result && 'keyId' in result && result.keyId : keyId)) ?? keys[0];
  const creditsLeft = staged ? staged.credits_remaining : credits;

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Staging</p>
        <h1>Playground</h1>
        <p className="lead">
          Stage a photo right here, exactly as the API would: it spends{' '}
          {cost === 1 ? 'one credit' : `${cost} credits (one a picture${declutter ? ', two with emptying' : ''})`} from
          your balance (you have <strong>{creditsLeft}</strong>), issues a claim code and sends{' '}
          <code>staging.complete</code> to the key’s webhook.
        </p>
      </header>

      <div aria-live="polite" className="stack">
        {staged ? (
          <Alert tone="success" title="Staged">
            {staged.credits_used} credit{staged.credits_used === 1 ? '' : 's'} spent; {staged.credits_remaining} left.
            Claim code <code>{staged.claim_code}</code> is ready for the estate agent.
          </Alert>
        ) : null}
        {failure ? (
          <Alert tone="error">
            {failure.formError}
            {refused.length > 0 ? (
              <ul>
                {refused.map((change, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed for the page's lifetime
                  <li key={index}>
                    {changeText(change.kind)} at {change.box[0]}, {change.box[1]} ({change.box[2]} × {change.box[3]} px
                    of the photo)
                  </li>
                ))}
              </ul>
            ) : null}
            {failure.status === 402 ? (
              <>
                {' '}
                <Link to="/billing">Buy credits</Link>.
              </>
            ) : null}
          </Alert>
        ) : null}
      </div>

      {keys.length === 0 ? (
        <section className="card" aria-labelledby="no-key-title">
          <h2 id="no-key-title">Create a key first</h2>
          <p>
            The playground charges the same way as the API: through one of your API keys.{' '}
            <Link to="/keys">Create your first key</Link> (it comes with 10 free credits), then come back here.
          </p>
        </section>
      ) : (
        <section className="card" aria-labelledby="try-title">
          <h2 id="try-title">Try it</h2>
          <Form method="post" encType="multipart/form-data" className="playground-form">
            <fieldset>
              <legend>Photo</legend>
              <label className="choice">
                <input
                  type="radio"
                  name="source"
                  value="sample"
                  checked={source === 'sample'}
                  onChange={() => setSource('sample')}
                />{' '}
                Use a sample room
              </label>
              <div className="field">
                <label htmlFor="field-sample" className="field__label visually-hidden">
                  Sample
                </label>
                <select id="field-sample" name="sample" className="input" onFocus={() => setSource('sample')}>
                  {samples.map((sample) => (
                    <option key={sample.id} value={sample.id}>
                      {sample.label}
                    </option>
                  ))}
                </select>
              </div>
              <label className="choice">
                <input
                  type="radio"
                  name="source"
                  value="upload"
                  checked={source === 'upload'}
                  onChange={() => setSource('upload')}
                />{' '}
                Upload a photo
              </label>
              <div className={`field${failure?.fieldErrors.image ? ' field--invalid' : ''}`}>
                <label htmlFor="field-photo" className="field__label visually-hidden">
                  Photo to upload
                </label>
                <input
                  id="field-photo"
                  name="photo"
                  type="file"
                  className="input"
                  accept="image/jpeg,image/png,image/webp,image/avif,image/tiff"
                  aria-describedby="field-photo-hint"
                  onChange={(event) => {
                    if (event.currentTarget.files?.length) setSource('upload');
                  }}
                />
                <p id="field-photo-hint" className="field__hint">
                  JPEG, PNG, WebP, AVIF or TIFF; up to 15 MB and 10 000 px a side.
                </p>
                {failure?.fieldErrors.image ? <p className="field__error">{failure.fieldErrors.image}</p> : null}
              </div>
            </fieldset>
            <WordChoice label="Style" name="style" values={styles} value={style} onChange={setStyle} />
            <WordChoice label="Room type" name="room_type" values={roomTypes} value={roomType} onChange={setRoomType} />
            {capabilities.max_variations > 1 ? (
              <div className="field">
                <label htmlFor="field-variations" className="field__label">
                  Variations
                </label>
                <select
                  id="field-variations"
                  name="variations"
                  className="input"
                  value={variations}
                  onChange={(event) => setVariations(Number(event.currentTarget.value))}
                >
                  {Array.from({ length: capabilities.max_variations }, (_, index) => index + 1).map((count) => (
                    <option key={count} value={count}>
                      {count === 1 ? '1 picture' : `${count} different pictures`}
                    </option>
                  ))}
                </select>
              </div>
            ) : null}
            {capabilities.declutter ? (
              <label className="choice">
                <input
                  type="checkbox"
                  name="declutter"
                  checked={declutter}
                  onChange={(event) => setDeclutter(event.currentTarget.checked)}
                />{' '}
                Empty the room of its furniture first (1 more credit)
              </label>
            ) : null}
            <div className="field playground-form__wide">
              <label htmlFor="field-disclosure" className="field__label">
                Disclosure
              </label>
              <select
                id="field-disclosure"
                name="disclosure"
                className="input"
                defaultValue=""
                aria-describedby="field-disclosure-hint"
              >
                <option value="">Your default</option>
                {DISCLOSURES.filter((profile) => capabilities.label || !drawsMark(profile)).map((profile) => (
                  <option key={profile} value={profile}>
                    {DISCLOSURE_TEXT[profile]}
                  </option>
                ))}
              </select>
              <p id="field-disclosure-hint" className="field__hint">
                Your default is set on the overview.
              </p>
            </div>
            <div className="field playground-form__wide">
              <label htmlFor="field-key_id" className="field__label">
                Charge through key
              </label>
              <select
                id="field-key_id"
                name="key_id"
                className="input"
                value={keyId}
                onChange={(event) => setKeyId(Number(event.currentTarget.value))}
              >
                {keys.map((key) => (
                  <option key={key.id} value={key.id}>
                    {key.name} ({key.prefix}…)
                  </option>
                ))}
              </select>
              {failure?.fieldErrors.key_id ? <p className="field__error">{failure.fieldErrors.key_id}</p> : null}
            </div>
            <div className="playground-form__submit">
              <button type="submit" className="button button--primary" disabled={staging} aria-describedby="stage-cost">
                {staging ? 'Staging… (a few seconds)' : 'Stage photo'}
              </button>
              <p id="stage-cost" className="field__hint">
                Costs {cost} credit{cost === 1 ? '' : 's'}, refunded if staging fails.
                {creditsLeft === 0
                  ? ' You have no credits left: buy some on the Billing page, or the request is refused.'
                  : ''}
              </p>
            </div>
          </Form>
        </section>
      )}

      {staged ? (
        <section className="card" aria-labelledby="result-title">
          <h2 id="result-title">Before and after</h2>
          <CompareSlider
            label="Before and after"
            before={{ src: `/originals/${staged.images[0]?.id}`, alt: 'Your photo before staging' }}
            after={{
              src: staged.image_url,
              alt: `The photo staged as a ${words(staged.style)} ${words(staged.room_type)}`,
            }}
            width={staged.images[0]?.width ?? 0}
            height={staged.images[0]?.height ?? 0}
          />
          <dl className="result-facts">
            <div>
              <dt>Claim code</dt>
              <dd>
                <code className="nowrap">{staged.claim_code}</code>
              </dd>
            </div>
            <div>
              <dt>Style</dt>
              <dd>{words(staged.style)}</dd>
            </div>
            <div>
              <dt>Room</dt>
              <dd>{words(staged.room_type)}</dd>
            </div>
            <div>
              <dt>Credits left</dt>
              <dd>{staged.credits_remaining}</dd>
            </div>
            <div>
              <dt>Fidelity</dt>
              <dd>{fidelityText(staged.images[0]?.fidelity)}</dd>
            </div>
            {staged.disclosure_caption ? (
              <div>
                <dt>Caption</dt>
                <dd>{staged.disclosure_caption}</dd>
              </div>
            ) : null}
          </dl>
          {staged.images.map((image) =>
            image.changes && image.changes.length > 0 ? (
              <section
                key={image.id}
                aria-label={`What the fidelity check flagged in variation ${image.variation + 1}`}
              >
                <h3>
                  What the fidelity check flagged{staged.images.length > 1 ? ` (variation ${image.variation + 1})` : ''}
                </h3>
                <ChangeOutlines
                  src={image.image_url}
                  alt="The staged image with the regions the fidelity check flagged outlined"
                  width={image.width}
                  height={image.height}
                  changes={image.changes}
                />
              </section>
            ) : null,
          )}
          {staged.images.length > 1 ? (
            <ul className="link-list">
              {staged.images.map((image) => (
                <li key={image.id}>
                  <a href={image.image_url}>
                    Variation {image.variation + 1} (seed {image.seed})
                  </a>{' '}
                  — fidelity {fidelityText(image.fidelity)}
                </li>
              ))}
            </ul>
          ) : null}
          <p className="actions">
            <a href={staged.image_url} download className="button button--small">
              Download the staged image
            </a>
            <Link to="/overview" className="button button--ghost button--small">
              Back to the overview
            </Link>
          </p>
        </section>
      ) : null}

      {chosenKey ? (
        <section className="card" aria-labelledby="snippets-title">
          <h2 id="snippets-title">The same call from your code</h2>
          <p>
            With key “{chosenKey.name}”. The API answers with the staged image URLs and the claim code; see the{' '}
            <a href="/docs">API docs</a> for every field.
          </p>
          <ApiSnippets
            idPrefix="playground"
            partialKey
            origin={origin}
            key={`${chosenKey.id}-${staged?.style ?? style}-${staged?.room_type ?? roomType}`}
            apiKey={`${chosenKey.prefix}…`}
            style={staged?.style ?? style}
            roomType={staged?.room_type ?? roomType}
          />
        </section>
      ) : null}
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
