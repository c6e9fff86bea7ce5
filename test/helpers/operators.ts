import { ledgerSum } from '../../server/domain/credits/ledger.js';
import { authenticator } from 'otplib';
import { type SignedUp, signUp } from '../fixtures/api-client.js';
import { confirmEmailOf } from '../fixtures/mail.js';
import type { TestServer } from './server.js';

/** Per database and operator e-mail: the identity token made at first use and the recovery codes not yet used. */
const operators = new Map<string, { token: string; recoveryCodes: string[] }>();

/**
 * An identity token of `email`, signed up on first use with its address confirmed and two-factor sign-in on: an
 * operator once OPERATOR_EMAILS names it. The same token is returned for the same database afterwards.
 */
export async function operatorToken(server: TestServer, email: string): Promise<string> {
  const known = operators.get(`${server.databaseUrl} ${email}`);
  if (known) return known.token;
  const { token }: SignedUp = await signUp(server.api, email);
  await confirmEmailOf(server, token);
  const { secret } = (await server.api.post('/api/v1/me/2fa/setup', { token })).body as { secret: string };
  const code = authenticator.clone({ epoch: server.clock.now() }).generate(secret);
  const enabled = await server.api.post('/api/v1/me/2fa/enable', { token, json: { code } });
  if (enabled.status !== 200) throw new Error(`2fa enable failed: ${enabled.status} ${enabled.text}`);
  operators.set(`${server.databaseUrl} ${email}`, { token, recoveryCodes: enabled.body.recovery_codes });
  return token;
}

/** A second factor for signing in as an operator made by operatorToken (one of its recovery codes, each used once). */
export function operatorSecondFactor(server: TestServer, email: string): string {
  const code = operators.get(`${server.databaseUrl} ${email}`)?.recoveryCodes.shift();
  if (!code) throw new Error(`no recovery code left for ${email}: call operatorToken first`);
  return code;
}

/** An account's credits and the sum of its ledger: `credits = Σ ledger` is checked after every change. */
export async function creditBooks(server: TestServer, accountId: string) {
  const { db } = server.services;
  const row = await db.selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirstOrThrow();
  return { credits: row.credits, ledger: await ledgerSum(db, accountId) };
}

/** The credit purchases of an account, newest first, by their public transaction id. */
export async function purchasesOf(server: TestServer, accountId: string): Promise<string[]> {
  const rows = await server.services.db
    .selectFrom('credit_ledger')
    .select('public_id')
    .where('account_id', '=', accountId)
    .where('reason', 'in', ['purchase', 'auto_topup'])
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => row.public_id);
}
