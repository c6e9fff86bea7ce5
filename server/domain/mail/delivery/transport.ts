import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { log } from '../../../observability/logger.js';

export interface OutgoingMail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  link: string | null;
  createdAt: number;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * SMTP_URL set: nodemailer's SMTP transport. Unset: the raw message nodemailer would send is written to
 * `<dataDir>/mail/<time>-<id>.eml` and logged with its subject and link, so local use needs no mail server.
 */
export function createMailTransport(options: { smtpUrl?: string; from: string; dataDir: string }): MailTransport {
  const { from } = options;
  if (options.smtpUrl) {
    const smtp = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(mail) {
        await smtp.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
      },
      close: () => smtp.close(),
    };
  }
  const stream = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const folder = path.join(options.dataDir, 'mail');
  return {
    async send(mail) {
      const info = await stream.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      });
      await mkdir(folder, { recursive: true });
      const stamp = new Date(mail.createdAt).toISOString().replace(/[:.]/g, '-');
      const file = path.join(folder, `${stamp}-${mail.id}.eml`);
      await writeFile(file, info.message as Buffer);
      log.info({ component: 'mail', to: mail.to, subject: mail.subject, link: mail.link, file }, 'e-mail written');
    },
    close: () => stream.close(),
  };
}
