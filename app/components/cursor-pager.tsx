import { Link } from '@remix-run/react';

interface Props {
  /** Names the links for screen readers: "Transaction pages". */
  label: string;
  /** The page this list sits on. */
  basePath: string;
  /** Query parameters every page keeps (filters); blank ones are left out. */
  keep?: Record<string, string | undefined>;
  /** The id of the last row shown: the next page starts after it. */
  oldestId: string | undefined;
  hasMore: boolean;
  /** Whether this is a later page (then a link back to the newest is shown). */
  paged: boolean;
}

/** "← Newest" and "Older →" under a list paged by `starting_after`, newest first; plain links, so no JavaScript. */
export function CursorPager({ label, basePath, keep = {}, oldestId, hasMore, paged }: Props) {
  const kept = Object.entries(keep).filter((entry): entry is [string, string] => Boolean(entry[1]));
  const href = (extra: [string, string][]) => {
    const query = new URLSearchParams([...kept, ...extra]).toString();
    return query ? `${basePath}?${query}` : basePath;
  };
  const older = hasMore && oldestId !== undefined;
  if (!paged && !older) return null;
  return (
    <nav className="pager" aria-label={label}>
      {paged ? (
        <Link to={href([])} className="button button--ghost button--small">
          ← Newest
        </Link>
      ) : null}
      {older ? (
        <Link to={href([['starting_after', oldestId]])} className="button button--ghost button--small">
          Older →
        </Link>
      ) : null}
    </nav>
  );
}
