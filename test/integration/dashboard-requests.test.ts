import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { refusalsAsResponses } from '../../server/http/dashboard-context.js';
import { createKey, type SignedUp, signUp } from '../fixtures/api-client.js';
import { dashboardPage } from '../helpers/dashboard-page.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { confirmEmail, tokenFromOutbox } from '../fixtures/mail.js';
import { operatorToken } from '../helpers/operators.js';
import { startOfNextMinute, useTestServer } from '../helpers/server.js';

const OPERATOR = 'dashboard-requests-operator@roomstage.example';
/** The statements that look a session up by its id (lucia's adapter), in either dialect's quoting. */
const SESSION_LOOKUP = /from [`"]sessions[`"].*where [`"]sessions[`"]\.[`"]id[`"]/i;

describeEachDatabase('Dashboard requests: one session check per page, no 500 from its own load', (dialect) => {
  let sessionLookups = 0;
  const server = useTestServer(dialect, {
    // A small session budget, so the burst below would spend it many times over if the dashboard counted.
    env: { SESSION_RATE_LIMIT_PER_MINUTE: '20', OPERATOR_EMAILS: OPERATOR },
    onQuery: (sql) => {
      if (SESSION_LOOKUP.test(sql)) sessionLookups++;
    },
  });

  async function lookupsOf(send: () => Promise<unknown>): Promise<number> {
    const before = sessionLookups;
    await send();
    return sessionLookups - before;
  }

  it('verifies the session once for a page and once for a form post on /keys (9 look-ups before)', async () => {
    const owner = await signUp(server.api);
    await createKey(server.api, owner.token, { name: 'Existing' });
    expect(await lookupsOf(() => dashboardPage(server.url, '/keys', owner.token))).toBe(1);
    const post = await lookupsOf(async () => {
      const created = await dashboardPage(server.url, '/keys', owner.token, { intent: 'create', name: 'Posted' });
      expect(created.html).toContain('Posted');
    });
    expect(post).toBe(1);
  });

  it('answers a burst of 60 quick page loads with no 500, beyond the session budget, which still holds for the API', async () => {
    // Before: 60 quick loads gave 18 × 500 "Something went wrong" (each page spent ~9 calls of the budget).
    const owner = await signUp(server.api);
    const pages = ['/overview', '/keys', '/team', '/usage', '/security', '/webhooks'];
    const statuses: number[] = [];
    for (let burst = 0; burst < 6; burst++) {
      const loads = Array.from({ length: 10 }, (_, i) =>
        dashboardPage(server.url, pages[(burst * 10 + i) % pages.length]!, owner.token),
      );
      for (const page of await Promise.all(loads)) statuses.push(page.status);
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(statuses).toHaveLength(60);
    // The API's own budget for the same session is untouched by the dashboard, and still enforced.
    const api: number[] = [];
    // A whole minute window to itself: the 21 calls must not straddle two windows on a slow machine.
    server.clock.advanceTo(startOfNextMinute(server.clock));
    for (let i = 0; i < 21; i++) api.push((await server.api.get('/api/v1/keys', { token: owner.token })).status);
    expect(api.slice(0, 20).every((status) => status === 200)).toBe(true);
    expect(api[20]).toBe(429);
  });

  it('renders a refusal a loader meets as its own page with its status: 403 for a role, 404 for an unknown key', async () => {
    const owner = await signUp(server.api);
    await confirmEmail(server, owner.email);
    const agent = await signUp(server.api);
    await join(owner, agent, 'agent');
    await server.api.post('/api/v1/accounts/current', { token: agent.token, json: { account_id: owner.userId } });
    const refused = await dashboardPage(server.url, '/keys', agent.token);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('Not with your role');
    const missing = await dashboardPage(server.url, '/keys/999999/webhook', owner.token);
    expect(missing.status).toBe(404);
  });

  it('a member of a suspended account gets the “suspended” page (403) with the way out, switches back and signs out', async () => {
    // Before: every page answered 500, sign-out and the switcher included, and the session stayed alive.
    const owner = await signUp(server.api);
    await confirmEmail(server, owner.email);
    const member = await signUp(server.api);
    await join(owner, member, 'developer');
    await server.api.post('/api/v1/accounts/current', { token: member.token, json: { account_id: owner.userId } });
    const operator = await operatorToken(server, OPERATOR);
    await server.api.post(`/api/v1/admin/accounts/${owner.userId}/suspend`, {
      token: operator,
      json: { reason: 'chargebacks' },
    });

    for (const path of ['/overview', '/keys', '/team']) {
      const page = await dashboardPage(server.url, path, member.token);
      expect({ path, status: page.status }).toEqual({ path, status: 403 });
      expect(page.html).toContain('This account is suspended');
      // The way out: the account switcher (a form posting to /switch-account) and signing out.
      expect(page.html).toContain('action="/switch-account"');
      expect(page.html).toContain('action="/logout"');
    }
    const switched = await dashboardPage(server.url, '/switch-account', member.token, {
      account_id: member.userId,
      redirectTo: '/keys',
    });
    expect({ status: switched.status, location: switched.location }).toEqual({ status: 302, location: '/keys' });
    expect((await dashboardPage(server.url, '/keys', member.token)).status).toBe(200);

    // The owner, whose only account is the suspended one, can still sign out: the session ends.
    const signedOut = await dashboardPage(server.url, '/logout', owner.token, {});
    expect(signedOut.status).toBe(302);
    expect((await server.api.get('/api/v1/me', { token: owner.token })).status).toBe(401);
  });

  async function join(owner: SignedUp, member: SignedUp, role: string) {
    await server.api.post('/api/v1/members/invites', { token: owner.token, json: { email: member.email, role } });
    const token = await tokenFromOutbox(server, member.email, 'invite');
    const accepted = await server.api.post('/api/v1/members/invites/accept', { token: member.token, json: { token } });
    expect(accepted.status).toBe(200);
  }
});

describe('The dashboard’s caller', () => {
  it('turns a limit a loader meets into a 429 page response with Retry-After and the seconds in its body', async () => {
    const caller = refusalsAsResponses({
      usage: {
        report: async () => {
          throw new AppError('rate_limited', 'Too many.', {}, { 'Retry-After': '7' });
        },
      },
    });
    const thrown = await caller.usage.report().catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Response);
    const response = thrown as Response;
    expect(response.status).toBe(429);
    expect(response.headers.get('Retry-After')).toBe('7');
    expect(await response.json()).toMatchObject({ code: 'rate_limited', retry_after: 7 });
  });

  it('leaves 401 and server faults as they are (sign-in redirects and the 500 page)', async () => {
    const caller = refusalsAsResponses({
      auth: {
        me: async () => {
          throw new AppError('authentication_required', 'Sign in.');
        },
      },
    });
    expect(await caller.auth.me().catch((error: unknown) => error)).toBeInstanceOf(AppError);
  });
});
