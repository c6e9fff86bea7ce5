// No imports: the dashboard runs these same rules in the browser before saving.

/**
 * Settings that cannot work are refused rather than saved. A top-up that does not lift the balance above the
 * threshold leaves it below, so every following charge would buy again; a monthly limit under one top-up pauses it
 * for the rest of every month. The dashboard runs the same rules before saving.
 */
export function autoTopUpProblems(settings: {
  amount: number;
  threshold: number;
  monthly_limit: number | null;
}): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  if (settings.threshold >= settings.amount) {
    problems.push({
      path: 'threshold',
      message: `The threshold (${settings.threshold}) must be below the credits bought each time (${settings.amount}), or every charge would buy again.`,
    });
  }
  if (settings.monthly_limit !== null && settings.monthly_limit < settings.amount) {
    problems.push({
      path: 'monthly_limit',
      message: `The monthly limit (${settings.monthly_limit}) must be at least the credits bought each time (${settings.amount}), or no top-up could run.`,
    });
  }
  return problems;
}
