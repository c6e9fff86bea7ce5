import { SESSION_COOKIE_NAME } from '../../server/auth/lucia.js';

export interface DashboardPage {
  status: number;
  location: string | null;
  /** The page's HTML with React's text-joining comments removed, so assertions can match whole sentences. */
  html: string;
}

/**
 * A dashboard page as a browser without JavaScript gets it: GET, or a plain form post when `form` is given, with
 * the session cookie of `token`. Redirects are not followed, so a test sees where an action sends the browser.
 */
export async function dashboardPage(
  baseUrl: string,
  path: string,
  token: string,
  form?: Record<string, string>,
): Promise<DashboardPage> {
  const response = await fetch(new URL(path, baseUrl), {
    method: form ? 'POST' : 'GET',
    headers: {
      cookie: `${SESSION_COOKIE_NAME}=${token}`,
      ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: form ? new URLSearchParams(form) : undefined,
    redirect: 'manual',
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    html: (await response.text()).replace(/<!-- -->/g, ''),
  };
}
