// One fixed locale and time zone, so the server's HTML and the browser's hydration print the same text.
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** "21 Nov 2026, 19:40", always in UTC; say so near where it is shown. */
export function formatTimestamp(iso: string): string {
  return dateTime.format(new Date(iso));
}
