import { randomBytes } from 'node:crypto';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  token?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

/** A thin fetch wrapper: tests speak real HTTP to the server, as outside clients do. */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('application/json')) parsed = JSON.parse(text);
    return { status: response.status, body: parsed as T, headers: response.headers, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('POST', path, options);
  }
  put<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('PUT', path, options);
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}

export const TEST_PASSWORD = 'correct horse battery';

export function uniqueEmail(label = 'user'): string {
  return `${label}-${randomBytes(5).toString('hex')}@example.test`;
}

export interface SignedUp {
  token: string;
  email: string;
  userId: string;
}

export async function signUp(api: ApiClient, email = uniqueEmail()): Promise<SignedUp> {
  const response = await api.post('/api/v1/auth/signup', { json: { email, password: TEST_PASSWORD } });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.text}`);
  return { token: response.body.token, email, userId: response.body.user.id };
}

export async function createKey(api: ApiClient, token: string, body: Record<string, unknown> = {}) {
  const response = await api.post('/api/v1/keys', { token, json: body });
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${response.text}`);
  return response.body as {
    id: number;
    key: string;
    prefix: string;
    bonus_credits_granted: number;
    mode: string;
    name: string;
  };
}

/** An account with one API key (and so the 10 bonus credits). */
export async function signUpWithKey(api: ApiClient) {
  const account = await signUp(api);
  const key = await createKey(api, account.token);
  return { ...account, key: key.key, keyId: key.id };
}
