import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { CompareSlider } from '../components/compare-slider.js';
import { EmptyState } from '../components/empty-state.js';
import { formatTimestamp } from '../utils/format.js';
import { requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Your images · Roomstage',
    'The staged, enhanced and furnished images that belong to your Roomstage account.',
  );

const KIND_TEXT = {
  staged: 'Staged',
  enhanced: 'Enhanced (4K)',
  placed: 'With products',
  decluttered: 'Decluttered',
} as const;
const PER_PAGE = 12;
const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const requested = Number(new URL(request.url).searchParams.get('page') ?? '1');
  const page = Number.isInteger(requested) && requested >= 1 ? requested : 1;
  const [gallery, revenue] = await Promise.all([
    context.trpc.claims.gallery({ page, per_page: PER_PAGE }),
    context.trpc.claims.adRevenue(),
  ]);
  return { ...gallery, revenue, pages: Math.max(1, Math.ceil(gallery.total / gallery.per_page)) };
}

/** The agent's images: everything in the claims they redeemed, before/after where the original is kept, with earnings. */
export default function Gallery() {
  const { images, page, pages, total, revenue } = useLoaderData<typeof loader>();
  const first = total === 0 ? 0 : (page - 1) * PER_PAGE + 1;
  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Agents</p>
        <h1>Your images</h1>
        <p className="lead">
          The images of every claim you <Link to="/claims">redeemed</Link>. Images with sponsored products earn you half
          of their ad revenue each time they are shown.
        </p>
      </header>

      <section className="card" aria-labelledby="earnings-title">
        <h2 id="earnings-title">Earnings from sponsored products</h2>
        <dl className="earnings">
          <div>
            <dt>Impressions</dt>
            <dd>{revenue.impressions.toLocaleString('en-GB')}</dd>
          </div>
          <div>
            <dt>Gross revenue</dt>
            <dd>{dollars(revenue.gross_cents)}</dd>
          </div>
          <div>
            <dt>Your share (50 %)</dt>
            <dd>{dollars(revenue.earned_cents)}</dd>
          </div>
        </dl>
        {revenue.impressions === 0 ? (
          <p className="muted">
            No impressions yet: earnings start when images with products are shown on your listings.
          </p>
        ) : null}
      </section>

      <section className="card" aria-labelledby="gallery-title">
        <h2 id="gallery-title">
          {total} image{total === 1 ? '' : 's'}
          {pages > 1 ? (
            <span className="muted">
              {' '}
              · {first}–{first + images.length - 1} shown
            </span>
          ) : null}
        </h2>
        {total === 0 ? (
          <EmptyState>
            No images yet. <Link to="/claims">Redeem a claim code</Link> to bring in the photos your staging company
            prepared.
          </EmptyState>
        ) : images.length === 0 ? (
          <EmptyState>
            This page is past the last image. <Link to="/gallery">Go to the first page</Link>.
          </EmptyState>
        ) : (
          <ul className="gallery">
            {images.map((image) => {
              const alt = `${KIND_TEXT[image.kind]} image from claim ${image.claim_code ?? ''}`;
              return (
                <li key={image.id} className="gallery__item">
                  {image.has_original ? (
                    <CompareSlider
                      label={`Image ${image.id}`}
                      before={{ src: `/originals/${image.id}`, alt: `The original photo of image ${image.id}` }}
                      after={{ src: image.image_url, alt }}
                      width={image.width}
                      height={image.height}
                    />
                  ) : (
                    <a href={image.image_url} target="_blank" rel="noreferrer">
                      <img
                        className="gallery__image"
                        src={image.image_url}
                        alt={alt}
                        loading="lazy"
                        width={image.width}
                        height={image.height}
                      />
                    </a>
                  )}
                  <div className="gallery__body">
                    <p>
                      <strong>{KIND_TEXT[image.kind]}</strong> · {image.width}×{image.height}
                    </p>
                    <p className="muted">
                      <code className="nowrap">{image.claim_code}</code> · {formatTimestamp(image.created_at)} UTC
                    </p>
                    <p className="actions">
                      <a href={image.image_url} download className="button button--small">
                        Download full size<span className="visually-hidden"> of image {image.id}</span>
                      </a>
                      <a
                        href={image.image_url}
                        target="_blank"
                        rel="noreferrer"
                        className="button button--ghost button--small"
                      >
                        Open<span className="visually-hidden"> image {image.id} in a new tab</span>
                      </a>
                    </p>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
        {pages > 1 ? (
          <nav className="pager" aria-label="Gallery pages">
            {page > 1 ? (
              <Link to={`?page=${page - 1}`} className="button button--small" rel="prev">
                ← Newer
              </Link>
            ) : (
              <span />
            )}
            <span className="muted">
              Page {page} of {pages}
            </span>
            {page < pages ? (
              <Link to={`?page=${page + 1}`} className="button button--small" rel="next">
                Older →
              </Link>
            ) : (
              <span />
            )}
          </nav>
        ) : null}
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
