import { ledgerSum } from '../../server/domain/credits/ledger.js';
import { type SignedUp, signUp, TEST_PASSWORD } from '../fixtures/api-client.js';
import { confirmEmailOf } from '../fixtures/mail.js';
import type { TestServer } from './server.js';

/** An identity token of `email`, signed up and confirmed on first use: an operator once OPERATOR_EMAILS names it. */
export async function operatorToken(server: TestServer, email: string): Promise<string> {
  const login = await server.api.post('/api/v1/auth/login', { json: { email, password: TEST_PASSWORD } });
  if (login.status === 200) return login.body.token;
  const { token }: SignedUp = await signUp(server.api, email);
  await confirmEmailOf(server, token);
  return token;
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
