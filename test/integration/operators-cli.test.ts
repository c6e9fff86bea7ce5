import { execFile } from 'node:child_process';
import { expect, it } from 'vitest';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { outboxFor } from '../fixtures/mail.js';
import { creditBooks } from '../helpers/operators.js';
import { useTestServer } from '../helpers/server.js';

/** `npm run admin -- …` as its script runs it (the compiled CLI; run `node scripts/ensure-build.mjs` first). */
function admin(databaseUrl: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['dist/server/cli/admin-main.js', ...args],
      { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

// Each command is a fresh node process (a few seconds on a busy machine).
const CLI_TEST_TIMEOUT = 180_000;

describeEachDatabase('The operator CLI (npm run admin)', (dialect) => {
  const server = useTestServer(dialect);
  const run = (...args: string[]) => admin(server.databaseUrl, args);

  it(
    'finds an account and grants and deducts credits as an adjustment by `cli`, never below zero',
    async () => {
      const customer = await signUpWithKey(server.api);
      const found = await run('search', customer.key.slice(0, 12), '--json');
      expect(found.code).toBe(0);
      expect(JSON.parse(found.stdout).accounts).toEqual([
        expect.objectContaining({ id: customer.userId, owner_email: customer.email, credits: 10, status: 'active' }),
      ]);
      const table = await run('search', customer.email);
      expect(table.stdout).toMatch(/^ACCOUNT\s+OWNER\s+CREDITS/);
      expect(table.stdout).toContain(customer.userId);

      const granted = await run('credits', customer.userId, '+15', '--reason', 'outage goodwill', '--json');
      expect(granted.code).toBe(0);
      expect(JSON.parse(granted.stdout)).toMatchObject({
        credits: 25,
        transaction: { delta: 15, reason: 'adjustment' },
      });
      const tooMuch = await run('credits', customer.userId, '-26', '--reason', 'clawback');
      expect(tooMuch.code).toBe(1);
      expect(tooMuch.stderr).toContain('would take it below zero');
      const deducted = await run('grant', customer.userId, '-25', '--reason', 'clawback');
      expect(deducted).toMatchObject({ code: 0, stdout: expect.stringContaining('now has 0 credits') });
      expect(await creditBooks(server, customer.userId)).toEqual({ credits: 0, ledger: 0 });

      const log = await server.api.get('/api/v1/audit-log?action=operator.credits_adjusted', { token: customer.token });
      expect(log.body.entries.map((e: { actor: unknown }) => e.actor)).toEqual([
        { type: 'operator', id: 'cli', label: 'cli' },
        { type: 'operator', id: 'cli', label: 'cli' },
      ]);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'refuses a change without a reason, or a command line it cannot read, with exit code 2 and a sentence',
    async () => {
      const customer = await signUpWithKey(server.api);
      for (const args of [
        ['credits', customer.userId, '+5'],
        ['suspend', customer.userId, '--reason', '   '],
        ['credits', customer.userId, 'five', '--reason', 'x'],
        ['fleet', '--days', '91'],
        ['payout', 'maybe', 'po_x', '--reason', 'x'],
      ]) {
        const refused = await run(...args);
        expect(refused.code, args.join(' ')).toBe(2);
        expect(refused.stdout, args.join(' ')).toBe('');
        expect(refused.stderr, args.join(' ')).toMatch(/^[^\n]+\. See `npm run admin -- help`\.\n$/);
      }
      const json = await run('credits', customer.userId, '+5', '--json');
      expect(JSON.parse(json.stderr)).toEqual({
        error: 'invalid request',
        code: 'invalid_request',
        message: '--reason: A reason is required (1–500 characters): it is kept in the audit log.',
      });
      expect(await creditBooks(server, customer.userId)).toEqual({ credits: 10, ledger: 10 });
      const help = await run('help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('payout paid <id> --reference <transfer> --reason <text>');
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'suspends an account from the shell: the running server refuses its key at once, until unsuspended',
    async () => {
      const customer = await signUpWithKey(server.api);
      const suspended = await run('suspend', customer.userId, '--reason', 'leaked key staging thousands', '--json');
      expect(JSON.parse(suspended.stdout)).toEqual({ status: 'suspended', jobs_failed: 0 });
      const refused = await server.api.get('/api/v1/credits', { token: customer.key });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('account_suspended');
      const restored = await run('unsuspend', customer.userId, '--reason', 'key rotated');
      expect(restored).toMatchObject({ code: 0, stdout: `Account ${customer.userId} is active again.\n` });
      expect((await server.api.get('/api/v1/credits', { token: customer.key })).status).toBe(200);
      const missing = await run('suspend', 'acc_nobody', '--reason', 'x', '--json');
      expect(missing.code).toBe(1);
      expect(JSON.parse(missing.stderr)).toMatchObject({ code: 'not_found' });
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'pays a payout with its reference and e-mails the agent; the queue and the fleet print as tables',
    async () => {
      const agent = await signUp(server.api);
      await server.services.db
        .insertInto('earnings_daily')
        .values({
          account_id: agent.userId,
          image_id: 'img_earning',
          day: Math.floor(Date.now() / 86_400_000),
          impressions: 4_000,
          earned_millicents: 2_000_000,
        })
        .execute();
      const requested = await server.api.post('/api/v1/earnings/payouts', {
        token: agent.token,
        json: { amount_cents: 1_200 },
      });
      const queue = await run('payouts', '--status', 'requested');
      expect(queue.stdout).toContain(requested.body.id);
      const paid = await run('payout-paid', requested.body.id, '--reference', 'WIRE-77', '--reason', 'weekly run');
      expect(paid.code).toBe(0);
      expect(paid.stdout).toContain('is paid (reference WIRE-77)');
      const earnings = await server.api.get('/api/v1/earnings', { token: agent.token });
      expect(earnings.body).toMatchObject({ available_cents: 800, requested_cents: 0, paid_cents: 1_200 });
      const [mail] = await outboxFor(server, agent.email, 'payout_paid');
      expect(mail?.text_body).toContain('Payment reference: WIRE-77.');
      const twice = await run('payout', 'reject', requested.body.id, '--reason', 'oops');
      expect(twice.code).toBe(1);

      const fleet = await run('fleet', '--days', '3', '--json');
      expect(JSON.parse(fleet.stdout).daily).toHaveLength(3);
      expect((await run('fleet')).stdout).toMatch(/^DATE\s+IMAGES/);
    },
    CLI_TEST_TIMEOUT,
  );
});
