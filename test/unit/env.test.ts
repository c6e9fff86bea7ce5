import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDuration } from '../../server/env.js';

describe('configuration', () => {
  it('reads BACKGROUND_WORK, and WEBHOOK_WORKER (its old name) when it is unset', () => {
    expect(loadConfig({ BACKGROUND_WORK: 'off' }).backgroundWork).toBe('off');
    expect(loadConfig({ WEBHOOK_WORKER: 'off' }).backgroundWork).toBe('off');
    expect(loadConfig({ BACKGROUND_WORK: 'inline', WEBHOOK_WORKER: 'off' }).backgroundWork).toBe('inline');
  });

  it('runs one app process per core and one worker process unless told otherwise', () => {
    expect(loadConfig({}).webConcurrency).toBe(availableParallelism());
    expect(loadConfig({}).workerConcurrency).toBe(1);
    expect(loadConfig({ WEB_CONCURRENCY: '3', WORKER_CONCURRENCY: '2' })).toMatchObject({
      webConcurrency: 3,
      workerConcurrency: 2,
    });
    expect(() => loadConfig({ WEB_CONCURRENCY: '0' })).toThrow(ConfigError);
  });

  it('runs on embedded defaults with no variables at all', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'production',
      port: 3000,
      databaseUrl: 'sqlite:./data/roomstage.db',
      dataDir: './data',
      publicBaseUrl: 'http://localhost:3000',
      allowPrivateNetwork: false,
      rateLimitPerMinute: 60,
      rateLimitConcurrent: 10,
      backgroundWork: 'inline',
    });
    expect(config.webhookRetryDelaysMs).toEqual([
      10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000,
    ]);
    expect(config.stripe.secretKey).toBeUndefined();
    expect(config.chargeHoldTimeoutMs).toBe(120_000);
  });

  it('reads CHARGE_HOLD_TIMEOUT as a positive duration and names it when it is not one', () => {
    expect(loadConfig({ CHARGE_HOLD_TIMEOUT: '2s' }).chargeHoldTimeoutMs).toBe(2_000);
    expect(loadConfig({ CHARGE_HOLD_TIMEOUT: '5m' }).chargeHoldTimeoutMs).toBe(300_000);
    for (const bad of ['120', '0s', 'soon']) {
      expect(() => loadConfig({ CHARGE_HOLD_TIMEOUT: bad })).toThrow(/CHARGE_HOLD_TIMEOUT/);
    }
  });

  it('reads the per-process work limits, 16 image requests and 4 asynchronous jobs by default', () => {
    expect(loadConfig({})).toMatchObject({ imageWorkPerProcess: 16, jobsPerProcess: 4 });
    expect(loadConfig({ JOBS_PER_PROCESS: '12' }).jobsPerProcess).toBe(12);
    expect(() => loadConfig({ JOBS_PER_PROCESS: '0' })).toThrow(/JOBS_PER_PROCESS/);
  });

  it('derives the public base URL from PORT and drops a trailing slash from an explicit one', () => {
    expect(loadConfig({ PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://stage.example.com/' }).publicBaseUrl).toBe(
      'https://stage.example.com',
    );
  });

  it('names every bad variable in one error', () => {
    try {
      loadConfig({
        PORT: 'abc',
        DATABASE_URL: 'postgres://x',
        RATE_LIMIT_PER_MINUTE: '0',
        WEBHOOK_RETRY_DELAYS: '10s,soon',
        ALLOW_PRIVATE_NETWORK: 'maybe',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      for (const name of [
        'PORT',
        'DATABASE_URL',
        'RATE_LIMIT_PER_MINUTE',
        'WEBHOOK_RETRY_DELAYS',
        'ALLOW_PRIVATE_NETWORK',
      ])
        expect(message).toContain(name);
    }
  });

  it('reads durations in ms, s, m, h and d', () => {
    expect(['250ms', '10s', '5m', '2h', '1d', '1.5s'].map(parseDuration)).toEqual([
      250, 10_000, 300_000, 7_200_000, 86_400_000, 1_500,
    ]);
    expect(parseDuration('10')).toBeNull();
    expect(parseDuration('-1s')).toBeNull();
  });
});
