import type { Kysely } from 'kysely';
import { isMysql } from '../../../db/client.js';
import type { Database, DisclosureProfile } from '../../../db/schema.js';
import type { Label } from '../../imaging/engine.js';
import { DEFAULT_DISCLOSURE, labelOf, profileOfLabel } from '../disclosure/disclosure.js';

type Executor = Kysely<Database>;

/**
 * The account's staging defaults as the API shows them: the disclosure profile every output gets unless a request
 * says, and the older `label` view of it (whether the profile draws the mark).
 */
export interface StagingSettings {
  disclosure: DisclosureProfile;
  label: Label;
}

export async function getStagingSettings(db: Executor, accountId: string): Promise<StagingSettings> {
  const row = await db
    .selectFrom('staging_settings')
    .select('disclosure')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const disclosure = row?.disclosure ?? DEFAULT_DISCLOSURE;
  return { disclosure, label: labelOf(disclosure) };
}

/** Saves the default: `disclosure`, or the older `label` (one of the two; `disclosure` wins when both come). */
export async function setStagingSettings(
  db: Executor,
  accountId: string,
  settings: { disclosure?: DisclosureProfile; label?: Label },
  now: number,
): Promise<StagingSettings> {
  const disclosure = settings.disclosure ?? (settings.label === undefined ? undefined : profileOfLabel(settings.label));
  if (disclosure === undefined) return getStagingSettings(db, accountId);
  const insert = db.insertInto('staging_settings').values({ account_id: accountId, disclosure, updated_at: now });
  const changes = { disclosure, updated_at: now };
  await (isMysql(db)
    ? insert.onDuplicateKeyUpdate(changes)
    : insert.onConflict((oc) => oc.column('account_id').doUpdateSet(changes))
  ).execute();
  return getStagingSettings(db, accountId);
}
