import { expect, it } from 'vitest';
import { signUp } from '../fixtures/api-client.js';
import { dashboardPage } from '../helpers/dashboard-page.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { useTestServer } from '../helpers/server.js';
import { confirmEmailOf } from '../fixtures/mail.js';

/** The billing page driven as a browser without JavaScript would: plain form posts with the session cookie. */
describeEachDatabase('Billing dashboard (simulated payments)', (dialect) => {
  const server = useTestServer(dialect);

  const page = (path: string, token: string, form?: Record<string, string>) =>
    dashboardPage(server.url, path, token, form);

  it('buys credits with a preset, shows the simulated card, turns on auto top-up with a monthly limit and removes the card', async () => {
    const { token } = await signUp(server.api);
    await confirmEmailOf(server, token);
    const empty = await page('/billing', token);
    expect(empty.status).toBe(200);
    expect(empty.html).toContain('No card on file');

    const buy = await page('/billing', token, { intent: 'buy', credits: '50' });
    expect(buy.status).toBe(302);
    const checkout = new URL(buy.location!);
    expect(checkout.pathname).toMatch(/^\/billing\/simulated-checkout\//);
    const simulated = await page(checkout.pathname, token);
    expect(simulated.html).toContain('Simulated payment');
    const sessionId = checkout.pathname.split('/').at(-1)!;
    const returned = await page(`/billing/return?session_id=${sessionId}`, token);
    expect(returned.html).toContain('50 credits were added');

    const withCard = await page('/billing', token);
    expect(withCard.html).toContain('VISA •••• 4242');
    expect(withCard.html).toContain('simulated');
    expect(withCard.html).toContain('<strong>50</strong> credits');

    const saved = await page('/billing', token, {
      intent: 'auto-topup',
      enabled: 'on',
      amount: '20',
      threshold: '5',
      monthly_limit: '100',
    });
    expect(saved.status).toBe(200);
    expect(saved.html).toContain('Auto top-up settings saved.');
    expect((await server.api.get('/api/v1/settings/auto-topup', { token })).body).toMatchObject({
      enabled: true,
      amount: 20,
      threshold: 5,
      monthly_limit: 100,
    });

    const invalid = await page('/billing', token, {
      intent: 'auto-topup',
      enabled: 'on',
      amount: '5',
      threshold: '5',
      monthly_limit: '',
    });
    expect(invalid.status).toBe(400);
    expect(invalid.html).toContain('field--invalid');

    // Blank and non-numeric fields get a sentence; a trap (threshold above the amount) is explained by field.
    const blank = await page('/billing', token, {
      intent: 'auto-topup',
      enabled: 'on',
      amount: '',
      threshold: 'ten',
      monthly_limit: '',
    });
    expect(blank.status).toBe(400);
    expect(blank.html).toContain('Enter the credits to buy each time.');
    expect(blank.html).toContain('Enter the balance that starts a top-up as a whole number, such as 100.');
    expect(blank.html).not.toMatch(/\bNaN\b|expected number/i);
    const trap = await page('/billing', token, {
      intent: 'auto-topup',
      enabled: 'on',
      amount: '10',
      threshold: '5000',
      monthly_limit: '',
    });
    expect(trap.status).toBe(400);
    expect(trap.html).toContain('must be below the credits bought each time');
    expect((await server.api.get('/api/v1/settings/auto-topup', { token })).body).toMatchObject({
      amount: 20,
      threshold: 5,
      monthly_limit: 100,
    });

    const removed = await page('/billing', token, { intent: 'remove-card' });
    expect(removed.html).toContain('The card was removed and auto top-up is off.');
    expect((await server.api.get('/api/v1/billing', { token })).body).toMatchObject({
      has_payment_method: false,
      auto_topup: { enabled: false },
    });
  });

  it('refuses a custom amount out of range next to the field, buying nothing', async () => {
    const { token } = await signUp(server.api);
    const refused = await page('/billing', token, { intent: 'buy', credits: 'custom', custom_credits: '20000' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('field--invalid');
    const blank = await page('/billing', token, { intent: 'buy', credits: 'custom', custom_credits: ' ' });
    expect(blank.status).toBe(400);
    expect(blank.html).toContain('Enter the number of credits to buy.');
    expect(blank.html).not.toMatch(/\bNaN\b|expected number/i);
    expect(
      await server.services.db
        .selectFrom('checkout_sessions')
        .select('id')
        .where('account_id', '=', (await server.api.get('/api/v1/me', { token })).body.id)
        .execute(),
    ).toEqual([]);
  });
});
