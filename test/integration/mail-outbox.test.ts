import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { signUp } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { freePort, outboxFor, startSmtpServer } from '../fixtures/mail.js';
import { useTestServer } from '../helpers/server.js';

async function until<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeEachDatabase('Mail outbox without SMTP_URL', (dialect) => {
  const server = useTestServer(dialect);

  it('writes each message to DATA_DIR/mail/<time>-<id>.eml with a plain-text and an HTML part', async () => {
    const user = await signUp(server.api);
    const [message] = await outboxFor(server, user.email, 'verify_email');
    const folder = join(server.services.config.dataDir, 'mail');
    const file = await until(async () =>
      existsSync(folder) ? readdirSync(folder).find((name) => name.endsWith(`-${message?.id}.eml`)) : undefined,
    );
    expect(file).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z-msg_\w+\.eml$/);
    const raw = readFileSync(join(folder, file), 'utf8');
    expect(raw).toContain('Subject: Confirm your e-mail address for Roomstage');
    expect(raw).toContain(`To: ${user.email}`);
    expect(raw).toContain('text/plain');
    expect(raw).toContain('text/html');
    const sent = await until(async () => {
      const [row] = await outboxFor(server, user.email, 'verify_email');
      return row?.status === 'sent' ? row : null;
    });
    expect(sent.attempts).toBe(1);
  });

  it('sends a message a dead sender had leased once its lease runs out', async () => {
    const now = server.clock.now();
    await server.services.db
      .insertInto('mail_outbox')
      .values({
        id: 'msg_leasedbyadeadsender0000',
        to_address: 'orphan@example.test',
        kind: 'test',
        subject: 'Left behind',
        text_body: 'hello',
        html_body: '<p>hello</p>',
        link: null,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now + 120_000,
        locked_until: now + 120_000,
        last_error: null,
        sent_at: null,
        created_at: now,
      })
      .execute();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await outboxFor(server, 'orphan@example.test'))[0]?.status).toBe('pending');
    server.clock.advance(121_000);
    await until(async () => (await outboxFor(server, 'orphan@example.test'))[0]?.status === 'sent');
  });
});

describeEachDatabase('Mail outbox with an SMTP server that is down at first', (dialect) => {
  let port: number;
  beforeAll(async () => {
    port = await freePort();
  });
  const server = useTestServer(dialect, () => ({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } }));

  it('keeps the message and retries it with backoff until the server answers', async () => {
    const user = await signUp(server.api);
    const failed = await until(async () => {
      const [row] = await outboxFor(server, user.email);
      return row && row.attempts === 1 ? row : null;
    });
    expect(failed.status).toBe('pending');
    expect(failed.last_error).toEqual(expect.any(String));
    expect(failed.next_attempt_at).toBeGreaterThanOrEqual(server.clock.now() + 50_000);

    const smtp = await startSmtpServer({ port });
    try {
      server.clock.advance(61_000);
      const mail = await smtp.waitFor(user.email, /Confirm your e-mail/);
      expect(mail.parsed.text).toContain('/verify-email?token=');
      const [row] = await until(async () => {
        const rows = await outboxFor(server, user.email);
        return rows[0]?.status === 'sent' ? rows : null;
      });
      expect(row?.attempts).toBe(2);
    } finally {
      await smtp.close();
    }
  });
});
