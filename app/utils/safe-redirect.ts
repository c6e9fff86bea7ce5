export const DEFAULT_REDIRECT = '/overview';

/**
 * Only same-site paths: "/x" yes; "//evil.example" and "/\evil.example" no (browsers read both as another host),
 * nor anything absolute.
 */
export function safeRedirect(to: unknown, fallback: string = DEFAULT_REDIRECT): string {
  if (typeof to !== 'string' || !to.startsWith('/') || to.startsWith('//') || to.startsWith('/\\')) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\\]/.test(to)) return fallback;
  return to;
}
