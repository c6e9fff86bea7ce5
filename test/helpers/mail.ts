import { type AddressInfo, createServer } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Db } from '../../db/client.js';
import { type ApiClient, TEST_PASSWORD } from './api-client.js';

/** What reading the outbox needs: a test server, or any process's database. */
type WithDb = { services: { db: Db } };

/** Messages written to the outbox for one address, oldest first (what the mail sender will send). */
export async function outboxFor(server: WithDb, to: string, kind?: string) {
  let query = server.services.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('to_address', '=', to.toLowerCase())
    .orderBy('created_at')
    .orderBy('id');
  if (kind) query = query.where('kind', '=', kind);
  return query.execute();
}

/**
 * The token of the newest link of that kind e-mailed to `to`. Waits a little for it: a password-reset link is
 * written just after the request is answered.
 */
export async function tokenFromOutbox(server: WithDb, to: string, kind: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const link = (await outboxFor(server, to, kind)).at(-1)?.link;
    if (link) return tokenOfLink(link);
    if (Date.now() > deadline) throw new Error(`no ${kind} message to ${to} in the outbox`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function tokenOfLink(link: string): string {
  const token = new URL(link).searchParams.get('token');
  if (!token) throw new Error(`no token in ${link}`);
  return token;
}

/**
 * Confirms an account's e-mail address the way its owner does: with the link of the verification e-mail and the
 * account's password (the test password unless given), which a link needs when opened without the user's session.
 */
export async function confirmEmail(
  server: WithDb & { api: ApiClient },
  email: string,
  password = TEST_PASSWORD,
): Promise<void> {
  const token = await tokenFromOutbox(server, email, 'verify_email');
  const response = await server.api.post('/api/v1/auth/verify-email', { json: { token, password } });
  if (response.status !== 200) throw new Error(`verify-email failed: ${response.status} ${response.text}`);
}

export interface ReceivedMail {
  from: string;
  to: string[];
  parsed: ParsedMail;
}

/** A real SMTP server on a free local port; every message it accepts is parsed with mailparser. */
export async function startSmtpServer(options: { port?: number } = {}) {
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            parsed,
          });
          for (const wake of waiters.splice(0)) wake();
          callback();
        })
        .catch(callback);
    },
  });
  const port = options.port ?? (await freePort());
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Waits until a message to `to` matching `subject` arrives. */
    async waitFor(to: string, subject: RegExp, timeoutMs = 10_000): Promise<ReceivedMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find((m) => m.to.includes(to.toLowerCase()) && subject.test(m.parsed.subject ?? ''));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no e-mail to ${to} matching ${subject} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Confirms the address of whoever `token` signs in (for tests that hold only an identity token). */
export async function confirmEmailOf(server: WithDb & { api: ApiClient }, token: string): Promise<void> {
  const me = await server.api.get('/api/v1/me', { token });
  if (me.status !== 200) throw new Error(`GET /me failed: ${me.status} ${me.text}`);
  const security = await server.services.db
    .selectFrom('user_security')
    .select('email_verified_at')
    .where('user_id', '=', me.body.id)
    .executeTakeFirst();
  if (security?.email_verified_at == null) await confirmEmail(server, me.body.email);
}
