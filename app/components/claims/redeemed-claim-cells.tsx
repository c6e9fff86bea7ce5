import { formatTimestamp } from '../../utils/format.js';

/** What a redeemed claim's row shows wherever claims are listed: its code (the row's header), images, when. */
export function RedeemedClaimCells({
  claim,
}: {
  claim: { claim_code: string; image_count: number; redeemed_at: string | null };
}) {
  return (
    <>
      <th scope="row">
        <code className="nowrap">{claim.claim_code}</code>
      </th>
      <td data-label="Images">{claim.image_count}</td>
      <td className="nowrap" data-label="Redeemed (UTC)">
        {claim.redeemed_at ? formatTimestamp(claim.redeemed_at) : '—'}
      </td>
    </>
  );
}
