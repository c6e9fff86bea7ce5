/** What the Security page's forms get back from its action: field errors and one sentence for the form. */
export interface SecurityFormFailure {
  intent?: string;
  formError: string;
  fieldErrors: Record<string, string>;
}

/** The answer of GET /api/v1/me/2fa as the page uses it. */
export interface TwoFactorState {
  enabled: boolean;
  enabled_at: string | null;
  recovery_codes_remaining: number;
  pending_setup: { secret: string; otpauth_url: string; qr_svg: string } | null;
}

export interface SessionRow {
  id: string;
  created_at: string | null;
  last_seen_at: string | null;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}
