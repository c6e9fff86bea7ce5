import type { AppLoadContext } from '@remix-run/node';

type Procedures = AppLoadContext['trpc']['keys'];

/** One row of `keys.list`. */
export type ApiKeyRow = Awaited<ReturnType<Procedures['list']>>['keys'][number];

/** What `keys.create` answers: the only time the full key exists outside the hash. */
export type CreatedApiKey = Awaited<ReturnType<Procedures['create']>>;
