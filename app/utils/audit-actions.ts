/**
 * What each audit action means to a person, in the order the Audit log's filter lists them. The server's list of
 * actions (server/domain/audit) must all be here: test/unit/audit-action-labels.test.ts fails otherwise. Actions
 * the API documents that nothing records yet are listed too, so they read well the day they appear.
 */
export const AUDIT_ACTION_LABELS: Readonly<Record<string, string>> = {
  'user.signed_in': 'Signed in',
  'user.sign_in_failed': 'Sign-in failed',
  'user.password_changed': 'Password changed',
  'user.password_reset': 'Password reset by e-mail',
  'user.2fa_enabled': 'Two-factor sign-in turned on',
  'user.2fa_disabled': 'Two-factor sign-in turned off',
  'key.created': 'API key created',
  'key.revoked': 'API key revoked',
  'webhook.updated': 'Webhook changed',
  'webhook.secret_rotated': 'Webhook secret rotated',
  'settings.updated': 'Settings changed',
  'billing.purchase': 'Purchase',
  'billing.payment_method_removed': 'Payment method removed',
  'member.invited': 'Member invited',
  'member.invite_revoked': 'Invite revoked',
  'member.joined': 'Member joined',
  'member.role_changed': 'Member role changed',
  'member.removed': 'Member removed',
  'payout.requested': 'Payout requested',
  'ads.funds_purchased': 'Ad funds bought',
  'ads.product_created': 'Ad product added',
  'ads.campaign_created': 'Ad campaign created',
  'ads.campaign_updated': 'Ad campaign changed',
  'operator.credits_adjusted': 'Credits adjusted by Roomstage',
  'operator.ad_funds_adjusted': 'Ad funds adjusted by Roomstage',
  'operator.purchase_refunded': 'Purchase refunded by Roomstage',
  'operator.account_suspended': 'Account suspended by Roomstage',
  'operator.account_unsuspended': 'Account restored by Roomstage',
  'operator.product_rejected': 'Ad product rejected by Roomstage',
  'operator.product_restored': 'Ad product restored by Roomstage',
  'operator.payout_paid': 'Payout paid by Roomstage',
  'operator.payout_rejected': 'Payout rejected by Roomstage',
  'operator.invalid_traffic_declared': 'Ad traffic declared invalid by Roomstage',
  'operator.earnings_taken_back': 'Earnings of invalid ad traffic taken back by Roomstage',
};

/** An action's label; one the dashboard does not know yet shows as recorded. */
export function auditActionLabel(action: string): string {
  return AUDIT_ACTION_LABELS[action] ?? action;
}
