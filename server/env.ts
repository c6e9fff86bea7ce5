import { availableParallelism } from 'node:os';
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
    for (const part of value
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
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
        ctx.addIssue({
          code: 'custom',
          message: `"${value}" is not a positive duration like 500ms, 10s, 5m, 2h or 1d`,
        });
        return z.NEVER;
      }
      return ms;
    });

const jsonObject = z.string().transform((value, ctx) => {
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below, as for any other bad value
  }
  ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
  return z.NEVER;
});

const ENGINES = ['builtin', 'replicate', 'openai', 'comfyui'] as const;

/** Each engine's required variables: a missing one stops the server at start with its name. */
const ENGINE_REQUIRES: Record<(typeof ENGINES)[number], string[]> = {
  builtin: [],
  replicate: ['REPLICATE_API_TOKEN', 'REPLICATE_MODEL'],
  openai: ['OPENAI_API_KEY'],
  comfyui: ['COMFYUI_URL'],
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const envSchema = z
  .object({
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
    SESSION_RATE_LIMIT_PER_MINUTE: positiveInt(300),
    WEBHOOK_RETRY_DELAYS: durationList,
    BACKGROUND_WORK: z.enum(['inline', 'off']).optional(),
    /** The old name of BACKGROUND_WORK (it switched jobs too, not only webhooks); still read. */
    WEBHOOK_WORKER: z.enum(['inline', 'off']).optional(),
    CHARGE_HOLD_TIMEOUT: duration('120s'),
    FREE_RERENDERS: z.coerce.number().int().min(0).max(100).default(3),
    FIDELITY_MIN: z.coerce.number().min(0).max(1).default(0.9),
    STRIPE_SECRET_KEY: z.string().min(1).optional(),
    STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
    STRIPE_API_URL: z.url().optional(),
    STORAGE_URL: z
      .string()
      .refine((url) => url.startsWith('file:') || /^s3:\/\/[^/?]+/.test(url), {
        message: 'must be file:<dir> or s3://bucket/prefix?endpoint=…&region=…',
      })
      .optional(),
    LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
    METRICS_TOKEN: z.string().min(1).optional(),
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    TRUST_PROXY: z.string().optional(),
    RETENTION_INTERVAL: duration('1h'),
    WEBHOOK_EVENT_RETENTION: duration('30d'),
    JOB_RETENTION: duration('30d'),
    AUDIT_RETENTION: duration('365d'),
    EARNINGS_HOLD: duration('7d'),
    SMTP_URL: z
      .string()
      .refine((url) => /^smtps?:\/\/[^/]+/.test(url), { message: 'must be smtp://user:pass@host:587 or smtps://…' })
      .optional(),
    MAIL_FROM: z.string().min(3).default('Roomstage <no-reply@localhost>'),
    OPERATOR_EMAILS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((email) => email.trim().toLowerCase())
          .filter(Boolean),
      ),
    ORPHAN_FILE_GRACE: duration('1h'),
    IMAGE_WORK_PER_PROCESS: positiveInt(16),
    JOBS_PER_PROCESS: positiveInt(4),
    WEB_CONCURRENCY: positiveInt(availableParallelism()),
    WORKER_CONCURRENCY: positiveInt(1),
    CLAIM_ATTEMPTS_PER_MINUTE: positiveInt(20),
    SIGN_IN_LIMIT_PER_IP: positiveInt(30),
    SIGN_IN_LIMIT_PER_EMAIL: positiveInt(10),
    ENGINE: z.enum(ENGINES).default('builtin'),
    ENGINE_TIMEOUT: duration('120s'),
    ENGINE_CONCURRENCY: positiveInt(8),
    REPLICATE_API_TOKEN: z.string().min(1).optional(),
    REPLICATE_MODEL: z
      .string()
      .regex(/^[\w.-]+\/[\w.-]+(:\w+)?$/, 'must be owner/name or owner/name:version')
      .optional(),
    REPLICATE_DECLUTTER_MODEL: z.string().min(1).optional(),
    REPLICATE_UPSCALE_MODEL: z.string().min(1).optional(),
    REPLICATE_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.replicate.com/v1'),
    REPLICATE_INPUT_TEMPLATE: jsonObject.optional(),
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_IMAGE_MODEL: z.string().min(1).default('gpt-image-1'),
    OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    COMFYUI_URL: z.url({ protocol: /^https?$/ }).optional(),
    COMFYUI_WORKFLOW: z.string().min(1).optional(),
    COMFYUI_DECLUTTER_WORKFLOW: z.string().min(1).optional(),
  })
  .superRefine((env, ctx) => {
    for (const name of ENGINE_REQUIRES[env.ENGINE]) {
      if (env[name as keyof typeof env] === undefined)
        ctx.addIssue({ code: 'custom', path: [name], message: `required when ENGINE=${env.ENGINE}` });
    }
  });

/** The remote engine's provider settings; `builtin` needs none. */
export type EngineConfig = { timeoutMs: number; concurrency: number } & (
  | { name: 'builtin' }
  | {
      name: 'replicate';
      apiToken: string;
      model: string;
      declutterModel?: string;
      upscaleModel?: string;
      baseUrl: string;
      /** The prediction's input with "{{image}}"-style placeholders; default {image, prompt, negative_prompt, seed}. */
      inputTemplate?: Record<string, unknown>;
    }
  | { name: 'openai'; apiKey: string; model: string; baseUrl?: string }
  | { name: 'comfyui'; url: string; workflowPath: string; declutterWorkflowPath?: string }
);

/** The example workflow shipped with the product, used when COMFYUI_WORKFLOW is not set. */
export const DEFAULT_COMFYUI_WORKFLOW = 'docs/engines/comfyui-staging-workflow.json';

type ParsedEnv = z.infer<typeof envSchema>;

function engineConfig(env: ParsedEnv): EngineConfig {
  const common = { timeoutMs: env.ENGINE_TIMEOUT, concurrency: env.ENGINE_CONCURRENCY };
  switch (env.ENGINE) {
    case 'builtin':
      return { ...common, name: 'builtin' };
    case 'replicate':
      return {
        ...common,
        name: 'replicate',
        apiToken: required(env.REPLICATE_API_TOKEN),
        model: required(env.REPLICATE_MODEL),
        declutterModel: env.REPLICATE_DECLUTTER_MODEL,
        upscaleModel: env.REPLICATE_UPSCALE_MODEL,
        baseUrl: env.REPLICATE_BASE_URL,
        inputTemplate: env.REPLICATE_INPUT_TEMPLATE,
      };
    case 'openai':
      return {
        ...common,
        name: 'openai',
        apiKey: required(env.OPENAI_API_KEY),
        model: env.OPENAI_IMAGE_MODEL,
        baseUrl: env.OPENAI_BASE_URL,
      };
    case 'comfyui':
      return {
        ...common,
        name: 'comfyui',
        url: required(env.COMFYUI_URL),
        workflowPath: env.COMFYUI_WORKFLOW ?? DEFAULT_COMFYUI_WORKFLOW,
        declutterWorkflowPath: env.COMFYUI_DECLUTTER_WORKFLOW,
      };
  }
}

export type Config = {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  databaseUrl: string;
  dataDir: string;
  publicBaseUrl: string;
  allowPrivateNetwork: boolean;
  rateLimitPerMinute: number;
  /** Calls a minute per signed-in session (dashboard pages and Token endpoints), batches counted call by call. */
  sessionRateLimitPerMinute: number;
  rateLimitConcurrent: number;
  webhookRetryDelaysMs: number[];
  /** `inline` runs the webhook delivery worker inside the server process; `off` leaves it to `npm run worker`. */
  /** `inline`: this server process also delivers webhooks, runs jobs and sweeps holds; `off`: `npm run worker` does. */
  backgroundWork: 'inline' | 'off';
  /** Age of a hold's lease after which its request counts as dead and the credits are refunded. */
  chargeHoldTimeoutMs: number;
  /** Re-renders of one image that cost nothing within 24 h of its creation; later ones cost 1 credit. */
  freeRerenders: number;
  /** Least fidelity score (0–1) a staged, decluttered or re-rendered image needs to be kept. */
  fidelityMin: number;
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
  retention: {
    intervalMs: number;
    webhookEventsMs: number;
    jobsMs: number;
    orphanFileGraceMs: number;
    auditMs: number;
  };
  /** How long an agent's share of an impression waits before it can be paid out (time to find invalid traffic). */
  earningsHoldMs: number;
  /** SMTP_URL unset: messages are written to DATA_DIR/mail/ as .eml files. */
  mail: { smtpUrl?: string; from: string };
  /** OPERATOR_EMAILS, lower case: users with one of these addresses, once verified, are operators. */
  operatorEmails: readonly string[];
  /** Image requests this process works on at once (bodies buffered, images decoded); more get 503. */
  imageWorkPerProcess: number;
  jobsPerProcess: number;
  /** App processes behind the one port (`npm start`); 1 runs a single process with no cluster primary. */
  webConcurrency: number;
  /** Processes of `npm run worker`. */
  workerConcurrency: number;
  /** Claim previews and redemptions a minute per client IP. */
  claimAttemptsPerMinute: number;
  /** Sign-in and sign-up attempts a minute, per client IP and per e-mail address (429 with Retry-After). */
  signInLimit: { perIp: number; perEmail: number };
  /** ENGINE: what draws staged images, with ENGINE_TIMEOUT and ENGINE_CONCURRENCY. */
  engine: EngineConfig;
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
    sessionRateLimitPerMinute: env.SESSION_RATE_LIMIT_PER_MINUTE,
    rateLimitConcurrent: env.RATE_LIMIT_CONCURRENT,
    webhookRetryDelaysMs: env.WEBHOOK_RETRY_DELAYS,
    backgroundWork: env.BACKGROUND_WORK ?? env.WEBHOOK_WORKER ?? 'inline',
    chargeHoldTimeoutMs: env.CHARGE_HOLD_TIMEOUT,
    freeRerenders: env.FREE_RERENDERS,
    fidelityMin: env.FIDELITY_MIN,
    stripe: { secretKey: env.STRIPE_SECRET_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET, apiUrl: env.STRIPE_API_URL },
    storageUrl: env.STORAGE_URL ?? `file:${env.DATA_DIR.replace(/\/+$/, '')}/images`,
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    metricsToken: env.METRICS_TOKEN,
    metricsPort: env.METRICS_PORT,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    retention: {
      intervalMs: env.RETENTION_INTERVAL,
      webhookEventsMs: env.WEBHOOK_EVENT_RETENTION,
      jobsMs: env.JOB_RETENTION,
      orphanFileGraceMs: env.ORPHAN_FILE_GRACE,
      auditMs: env.AUDIT_RETENTION,
    },
    earningsHoldMs: env.EARNINGS_HOLD,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    operatorEmails: env.OPERATOR_EMAILS,
    imageWorkPerProcess: env.IMAGE_WORK_PER_PROCESS,
    jobsPerProcess: env.JOBS_PER_PROCESS,
    webConcurrency: env.WEB_CONCURRENCY,
    workerConcurrency: env.WORKER_CONCURRENCY,
    claimAttemptsPerMinute: env.CLAIM_ATTEMPTS_PER_MINUTE,
    signInLimit: { perIp: env.SIGN_IN_LIMIT_PER_IP, perEmail: env.SIGN_IN_LIMIT_PER_EMAIL },
    engine: engineConfig(env),
  };
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** A variable the schema's engine check already required; typed as present from here on. */
function required(value: string | undefined): string {
  if (value === undefined) throw new Error('checked by the ENGINE refinement');
  return value;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text);
  if (!match) return null;
  const unit = UNIT_MS[match[2] ?? ''];
  return unit === undefined ? null : Math.round(Number(match[1]) * unit);
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
