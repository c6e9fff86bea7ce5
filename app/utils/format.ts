// One fixed locale and time zone, so the server's HTML and the browser's hydration print the same text.
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** "21 Nov 2026, 19:40", always in UTC; say so near where it is shown. */
export function formatTimestamp(iso: string): string {
  return dateTime.format(new Date(iso));
}

/** Cents as the dashboard shows money: "$1,212.50". */
export function formatCents(cents: number): string {
  return `$${(cents / 100).toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** Words of an API value for people: "living_room" → "Living room". */
export function humanize(value: string): string {
  const words = value.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
