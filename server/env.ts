import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .default('false')
  .transform((value) => value === 'true' || value === '1');

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const durationList = z
  .string()
  .default('10s,1m,5m,30m,2h,6h,12h,24h')
  .transform((value, ctx) => {
    const delays: number[] = [];
    for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
      const ms = parseDuration(part);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: `"${part}" is not a duration like 500ms, 10s, 5m, 2h or 1d` });
        return z.NEVER;
      }
      delays.push(ms);
    }
    return delays;
  });

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const ms = parseDuration(value.trim());
      if (ms === null || ms <= 0) {
        ctx.addIssue({ code: 'custom', message: `"${value}" is not a positive duration like 500ms, 10s, 5m, 2h or 1d` });
        return z.NEVER;
      }
      return ms;
    });

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z
    .string()
    .default('sqlite:./data/roomstage.db')
    .refine((url) => url.startsWith('sqlite:') || url.startsWith('mysql://'), {
      message: 'must be sqlite:<file> or mysql://user:pass@host:3306/db',
    }),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  ALLOW_PRIVATE_NETWORK: booleanFlag,
  RATE_LIMIT_PER_MINUTE: positiveInt(60),
  RATE_LIMIT_CONCURRENT: positiveInt(10),
  WEBHOOK_RETRY_DELAYS: durationList,
  WEBHOOK_WORKER: z.enum(['inline', 'off']).default('inline'),
  CHARGE_HOLD_TIMEOUT: duration('120s'),
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  STRIPE_API_URL: z.url().optional(),
  STORAGE_URL: z
    .string()
    .refine((url) => url.startsWith('file:') || /^s3:\/\/[^/?]+/.test(url), { message: 'must be file:<dir> or s3://bucket/prefix?endpoint=…&region=…' })
    .optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
  METRICS_TOKEN: z.string().min(1).optional(),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  TRUST_PROXY: z.string().optional(),
  RETENTION_INTERVAL: duration('1h'),
  WEBHOOK_EVENT_RETENTION: duration('30d'),
  JOB_RETENTION: duration('30d'),
  ORPHAN_FILE_GRACE: duration('1h'),
  IMAGE_WORK_PER_PROCESS: positiveInt(16),
  JOBS_PER_PROCESS: positiveInt(4),
  CLAIM_ATTEMPTS_PER_MINUTE: positiveInt(20),
  SIGN_IN_LIMIT_PER_IP: positiveInt(30),
  SIGN_IN_LIMIT_PER_EMAIL: positiveInt(10),
});

export type Config = {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  databaseUrl: string;
  dataDir: string;
  publicBaseUrl: string;
  allowPrivateNetwork: boolean;
  rateLimitPerMinute: number;
  rateLimitConcurrent: number;
  webhookRetryDelaysMs: number[];
  /** `inline` runs the webhook delivery worker inside the server process; `off` leaves it to `npm run worker`. */
  webhookWorker: 'inline' | 'off';
  /** Age of a hold's lease after which its request counts as dead and the credits are refunded (CONTRACT §8). */
  chargeHoldTimeoutMs: number;
  stripe: { secretKey?: string; webhookSecret?: string; apiUrl?: string };
  /** `file:<dir>` or `s3://bucket/prefix?…`; defaults to `file:<DATA_DIR>/images`. */
  storageUrl: string;
  /** Pino level; `silent` under NODE_ENV=test unless LOG_LEVEL is set, so expected failures print nothing. */
  logLevel: (typeof LOG_LEVELS)[number];
  /** When set, GET /metrics wants `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** `npm run worker` serves GET /metrics on this port when set (app nodes serve it on PORT). */
  metricsPort?: number;
  /** Express's `trust proxy` (hops, `true`, or addresses): which X-Forwarded-For entries name the client IP. */
  trustProxy: boolean | number | string;
  retention: { intervalMs: number; webhookEventsMs: number; jobsMs: number; orphanFileGraceMs: number };
  /** Image requests this process works on at once (bodies buffered, images decoded); more get 503. */
  imageWorkPerProcess: number;
  jobsPerProcess: number;
  /** Claim previews and redemptions a minute per client IP. */
  claimAttemptsPerMinute: number;
  /** Sign-in and sign-up attempts a minute, per client IP and per e-mail address (429 with Retry-After). */
  signInLimit: { perIp: number; perEmail: number };
};

export class ConfigError extends Error {}

/** Reads the environment once at boot; every bad variable is named in one error. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const blanksRemoved = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(blanksRemoved);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  return {
    nodeEnv: env.NODE_ENV,
    port: env.PORT,
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    rateLimitConcurrent: env.RATE_LIMIT_CONCURRENT,
    webhookRetryDelaysMs: env.WEBHOOK_RETRY_DELAYS,
    webhookWorker: env.WEBHOOK_WORKER,
    chargeHoldTimeoutMs: env.CHARGE_HOLD_TIMEOUT,
    stripe: { secretKey: env.STRIPE_SECRET_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET, apiUrl: env.STRIPE_API_URL },
    storageUrl: env.STORAGE_URL ?? `file:${env.DATA_DIR.replace(/\/+$/, '')}/images`,
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    metricsToken: env.METRICS_TOKEN,
    metricsPort: env.METRICS_PORT,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    retention: { intervalMs: env.RETENTION_INTERVAL, webhookEventsMs: env.WEBHOOK_EVENT_RETENTION, jobsMs: env.JOB_RETENTION, orphanFileGraceMs: env.ORPHAN_FILE_GRACE },
    imageWorkPerProcess: env.IMAGE_WORK_PER_PROCESS,
    jobsPerProcess: env.JOBS_PER_PROCESS,
    claimAttemptsPerMinute: env.CLAIM_ATTEMPTS_PER_MINUTE,
    signInLimit: { perIp: env.SIGN_IN_LIMIT_PER_IP, perEmail: env.SIGN_IN_LIMIT_PER_EMAIL },
  };
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text);
  if (!match) return null;
  return Math.round(Number(match[1]) * UNIT_MS[match[2]!]!);
}

/** For process entry points: a bad environment prints every problem and exits 1 instead of a stack trace. */
export function loadConfigOrExit(): Config {
  try {
    const config = loadConfig();
    // Libraries (Express, React, Remix) read NODE_ENV themselves: they see the mode the configuration chose.
    process.env.NODE_ENV = config.nodeEnv;
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
