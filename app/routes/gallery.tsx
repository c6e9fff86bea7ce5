import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { formatTimestamp } from '../utils/format.js';
import { requireAccount } from '../utils/session.server.js';

export const meta: MetaFunction = () => [{ title: 'Your images · Roomstage' }];

const KIND_TEXT = { staged: 'Staged', enhanced: 'Enhanced (4K)', placed: 'With products' } as const;
const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const [{ images }, revenue] = await Promise.all([context.trpc.claims.images(), context.trpc.claims.adRevenue()]);
  return { images, revenue };
}

/** The agent's images: everything in the claims they redeemed, with what the sponsored products earned them. */
export default function Gallery() {
  const { images, revenue } = useLoaderData<typeof loader>();
  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Estate agents</p>
        <h1>Your images</h1>
        <p className="lead">
          The images of every claim you <Link to="/claims">redeemed</Link>. Images with sponsored products earn you half of their ad revenue
          each time they are shown.
        </p>
      </header>

      <section className="card" aria-labelledby="earnings-title">
        <h2 id="earnings-title">Ad revenue</h2>
        <dl style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(10rem, 1fr))', gap: '1rem', margin: 0 }}>
          <div>
            <dt className="muted">Impressions</dt>
            <dd style={{ margin: 0, fontSize: '1.5rem' }}>{revenue.impressions.toLocaleString('en-GB')}</dd>
          </div>
          <div>
            <dt className="muted">Gross revenue</dt>
            <dd style={{ margin: 0, fontSize: '1.5rem' }}>{dollars(revenue.gross_cents)}</dd>
          </div>
          <div>
            <dt className="muted">Your share (50 %)</dt>
            <dd style={{ margin: 0, fontSize: '1.5rem' }}>{dollars(revenue.earned_cents)}</dd>
          </div>
        </dl>
      </section>

      <section className="card" aria-labelledby="gallery-title">
        <h2 id="gallery-title">
          {images.length} image{images.length === 1 ? '' : 's'}
        </h2>
        {images.length === 0 ? (
          <p className="muted">
            No images yet. <Link to="/claims">Redeem a claim code</Link> to bring in the photos your staging company prepared.
          </p>
        ) : (
          <ul style={{ listStyle: 'none', padding: 0, margin: 0, display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(14rem, 1fr))', gap: '1rem' }}>
            {images.map((image) => (
              <li key={image.id} style={{ border: '1px solid rgba(0,0,0,.1)', borderRadius: '0.5rem', overflow: 'hidden' }}>
                <a href={image.image_url} target="_blank" rel="noreferrer">
                  <img
                    src={image.image_url}
                    alt={`${KIND_TEXT[image.kind]} image from claim ${image.claim_code ?? ''}`}
                    loading="lazy"
                    width={image.width}
                    height={image.height}
                    style={{ display: 'block', width: '100%', height: 'auto', aspectRatio: `${image.width} / ${image.height}`, objectFit: 'cover' }}
                  />
                </a>
                <div style={{ padding: '0.5rem 0.75rem' }}>
                  <p style={{ margin: 0 }}>
                    <strong>{KIND_TEXT[image.kind]}</strong> · {image.width}×{image.height}
                  </p>
                  <p className="muted" style={{ margin: 0 }}>
                    <code>{image.claim_code}</code> · {formatTimestamp(image.created_at)}
                  </p>
                  <a href={image.image_url} download className="button button--ghost button--small">
                    Download full size
                  </a>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
