import type { Kysely } from 'kysely';
import { isMysql } from '../../../db/client.js';
import type { Database, DisclosureProfile } from '../../../db/schema.js';
import type { Label } from '../../imaging/engine.js';

type Executor = Kysely<Database>;

/** The account's staging defaults as the API shows them: the label every output gets unless a request says. */
export interface StagingSettings {
  label: Label;
}

/** Until an account chooses, outputs carry no mark. */
export const DEFAULT_DISCLOSURE: DisclosureProfile = 'none';

/** The API's `label` is one view of the stored disclosure profile (profiles may grow beyond the two labels). */
const LABEL_OF: Record<DisclosureProfile, Label> = { none: 'none', label: 'virtually_staged' };
const PROFILE_OF: Record<Label, DisclosureProfile> = { none: 'none', virtually_staged: 'label' };

export async function getStagingSettings(db: Executor, accountId: string): Promise<StagingSettings> {
  const row = await db
    .selectFrom('staging_settings')
    .select('disclosure')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return { label: LABEL_OF[row?.disclosure ?? DEFAULT_DISCLOSURE] ?? 'none' };
}

export async function setStagingSettings(
  db: Executor,
  accountId: string,
  settings: StagingSettings,
  now: number,
): Promise<StagingSettings> {
  const disclosure = PROFILE_OF[settings.label];
  const insert = db.insertInto('staging_settings').values({ account_id: accountId, disclosure, updated_at: now });
  const changes = { disclosure, updated_at: now };
  await (isMysql(db)
    ? insert.onDuplicateKeyUpdate(changes)
    : insert.onConflict((oc) => oc.column('account_id').doUpdateSet(changes))
  ).execute();
  return getStagingSettings(db, accountId);
}
