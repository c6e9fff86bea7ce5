import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import { afterCommit } from '../../../db/transaction.js';
import type { Database } from '../../../db/schema.js';
import { newId } from '../../ids.js';
import type { ComposedMail } from './messages.js';

/** In-process wake-up for the mail sender, fired after the transaction that wrote a message commits. */
export const mailSignal = new EventEmitter();
mailSignal.setMaxListeners(0);
export const MAIL_WAKE = 'wake';

/**
 * Writes a message to the outbox inside the caller's transaction: the change and its e-mail commit or vanish
 * together, and a committed message is sent by whichever process's mail sender claims it, even after a crash.
 */
export async function enqueueMail(
  trx: Kysely<Database>,
  input: { to: string; mail: ComposedMail; now: number },
): Promise<string> {
  const id = newId('mail');
  await trx
    .insertInto('mail_outbox')
    .values({
      id,
      to_address: input.to,
      kind: input.mail.kind,
      subject: input.mail.subject,
      text_body: input.mail.text,
      html_body: input.mail.html,
      link: input.mail.link,
      status: 'pending',
      attempts: 0,
      next_attempt_at: input.now,
      locked_until: null,
      last_error: null,
      sent_at: null,
      created_at: input.now,
    })
    .execute();
  afterCommit(trx, () => mailSignal.emit(MAIL_WAKE));
  return id;
}
