/** A message ready for the outbox: one layout gives both the plain-text and the HTML part. */
export interface ComposedMail {
  kind: string;
  subject: string;
  text: string;
  html: string;
  /** The one call to action, if any. */
  link: string | null;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

interface Layout {
  kind: string;
  subject: string;
  paragraphs: string[];
  action?: { label: string; url: string };
  /** A line under the action, e.g. how long the link works. */
  footnote?: string;
}

function compose(layout: Layout): ComposedMail {
  const { action } = layout;
  const text = [
    ...layout.paragraphs,
    ...(action ? [`${action.label}: ${action.url}`] : []),
    ...(layout.footnote ? [layout.footnote] : []),
    '— Roomstage',
  ].join('\n\n');
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1a1a1a;max-width:560px;margin:auto">',
    '<h1 style="font-size:20px">Roomstage</h1>',
    ...layout.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    ...(action
      ? [
          `<p><a href="${escapeHtml(action.url)}" style="background:#1f4fd1;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>`,
          `<p style="font-size:13px;color:#555">Or open this link: ${escapeHtml(action.url)}</p>`,
        ]
      : []),
    ...(layout.footnote ? [`<p style="font-size:13px;color:#555">${escapeHtml(layout.footnote)}</p>`] : []),
    '</body></html>',
  ].join('\n');
  return { kind: layout.kind, subject: layout.subject, text, html, link: action?.url ?? null };
}

export function verifyEmailMessage(input: { url: string }): ComposedMail {
  return compose({
    kind: 'verify_email',
    subject: 'Confirm your e-mail address for Roomstage',
    paragraphs: ['Please confirm that this e-mail address belongs to your Roomstage account.'],
    action: { label: 'Confirm e-mail address', url: input.url },
    footnote: 'The link works for 7 days. If you did not sign up, ignore this message.',
  });
}

export function passwordResetMessage(input: { url: string }): ComposedMail {
  return compose({
    kind: 'password_reset',
    subject: 'Reset your Roomstage password',
    paragraphs: ['Someone asked to reset the password of your Roomstage account.'],
    action: { label: 'Choose a new password', url: input.url },
    footnote:
      'The link works once, for 1 hour. If you did not ask for it, ignore this message: your password stays as it is.',
  });
}

export function purchaseReceiptMessage(input: { credits: number; reference: string; balance: number }): ComposedMail {
  return compose({
    kind: 'purchase_receipt',
    subject: `Receipt: ${input.credits} Roomstage credits`,
    paragraphs: [
      `Thank you for your purchase of ${input.credits} credits ($${input.credits}.00).`,
      `Reference: ${input.reference}. Your balance is now ${input.balance} credits.`,
    ],
  });
}

export function autoTopUpFailedMessage(input: { amount: number; reason: string; balance: number; billingUrl: string }) {
  return compose({
    kind: 'auto_topup_failed',
    subject: 'Roomstage auto top-up failed',
    paragraphs: [
      `We could not buy ${input.amount} credits for your account (${input.reason.replaceAll('_', ' ')}).`,
      `Your balance is ${input.balance} credits. Auto top-up pauses until you update your payment method or settings.`,
    ],
    action: { label: 'Open billing', url: input.billingUrl },
  });
}

export function twoFactorChangedMessage(input: { enabled: boolean; securityUrl: string }): ComposedMail {
  const state = input.enabled ? 'turned on' : 'turned off';
  return compose({
    kind: 'two_factor_changed',
    subject: `Two-factor sign-in was ${state}`,
    paragraphs: [
      `Two-factor sign-in was just ${state} for your Roomstage account.`,
      'If this was not you, reset your password at once and review your active sessions.',
    ],
    action: { label: 'Review security settings', url: input.securityUrl },
  });
}

export function payoutPaidMessage(input: { amountCents: number; reference: string | null }): ComposedMail {
  const dollars = (input.amountCents / 100).toFixed(2);
  return compose({
    kind: 'payout_paid',
    subject: `Your Roomstage payout of $${dollars} is on its way`,
    paragraphs: [
      `We paid out $${dollars} of your ad earnings.`,
      ...(input.reference ? [`Payment reference: ${input.reference}.`] : []),
    ],
  });
}

export function inviteMessage(input: {
  inviter: string;
  accountName: string;
  role: string;
  url: string;
}): ComposedMail {
  return compose({
    kind: 'invite',
    subject: `${input.inviter} invited you to ${input.accountName} on Roomstage`,
    paragraphs: [
      `${input.inviter} invited you to join the Roomstage account ${input.accountName} as ${input.role}.`,
      'Sign in (or sign up) with this e-mail address, then accept the invitation.',
    ],
    action: { label: 'Accept the invitation', url: input.url },
    footnote: 'The link works once, for 7 days. If you did not expect it, ignore this message.',
  });
}

export function payoutRejectedMessage(input: { amountCents: number }): ComposedMail {
  const dollars = (input.amountCents / 100).toFixed(2);
  return compose({
    kind: 'payout_rejected',
    subject: `Your Roomstage payout request of $${dollars} was not paid`,
    paragraphs: [
      `We could not pay out your request of $${dollars}.`,
      'The amount is back in your available earnings: check your payout details and request it again, or reply to this message to ask why.',
    ],
  });
}
