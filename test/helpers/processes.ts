import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** stdout's JSON lines (pino), parsed. */
  logLines(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
  /** SIGKILL: the process dies at once, mid-request, as a crashed machine would. */
  kill(): Promise<void>;
}

/** Sends `signal` unless the process has already ended, and waits for it to exit; resolves to its exit code. */
export async function endProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, 'exit') as Promise<[number | null]>;
  child.kill(signal);
  const [code] = await exited;
  return code;
}

/** Suites sign up dozens of accounts from 127.0.0.1 within a minute; the sign-in throttle's own tests lower these. */
export const MANY_SIGN_INS = { SIGN_IN_LIMIT_PER_IP: '100000', SIGN_IN_LIMIT_PER_EMAIL: '100000' };

interface StartedChild {
  child: ChildProcess;
  stdout(): string;
  /** stdout and stderr, interleaved as they came. */
  output(): string;
}

/**
 * Spawns `program command…` with `env` over this process's environment and waits until `ready` says so; a child
 * that exits first, or is not ready within 45 s, is killed and fails the start with everything it printed.
 */
async function spawnUntilReady(
  what: string,
  program: string,
  command: string[],
  env: NodeJS.ProcessEnv,
  ready: (started: StartedChild) => Promise<boolean> | boolean,
): Promise<StartedChild> {
  const child = spawn(program, command, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let output = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => (output += chunk));
  const started: StartedChild = { child, stdout: () => stdout, output: () => output };
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited: ${output}`);
    if (await ready(started)) return started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await endProcess(child, 'SIGKILL');
  throw new Error(`${what} did not start: ${output}`);
}

/**
 * The server in a process of its own, as production runs it: `command` is the argv after `program`, node by default
 * (default: tsx on server/main.ts; `['dist/server/main.js']` runs the compiled tree; program `npm` with `['start']`
 * runs it exactly as a user does). `env.PORT` keeps a port across a restart; a free one is picked otherwise.
 */
export async function spawnServerProcess(
  env: Record<string, string>,
  command: string[] = ['--import', 'tsx', 'server/main.ts'],
  program: string = process.execPath,
): Promise<ServerProcess> {
  const port = env.PORT ?? String(await freePort());
  const url = `http://127.0.0.1:${port}`;
  const healthy = () =>
    fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
  const { child, stdout } = await spawnUntilReady(
    'server',
    program,
    command,
    {
      NODE_ENV: 'test',
      DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'roomstage-proc-')), 'test.db')}`,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'roomstage-proc-data-')),
      ALLOW_PRIVATE_NETWORK: 'true',
      // One process, so a signal to the PID reaches the server itself; cluster tests ask for more.
      WEB_CONCURRENCY: '1',
      ...MANY_SIGN_INS,
      ...env,
      PORT: port,
    },
    healthy,
  );
  return {
    child,
    url,
    stdout,
    logLines: () =>
      stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    stop: () => endProcess(child, 'SIGTERM').then(() => {}),
    kill: () => endProcess(child, 'SIGKILL').then(() => {}),
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** SIGTERM; resolves to the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

/**
 * `npm run worker` as production runs it (compiled JavaScript), in a process of its own; resolves once it runs.
 * `command` as for spawnServerProcess (e.g. tsx on test/helpers/slow-engine-worker.ts).
 */
export async function spawnWorkerProcess(
  env: Record<string, string>,
  command: string[] = ['dist/server/worker-main.js'],
  program: string = process.execPath,
): Promise<WorkerProcess> {
  const { child, output } = await spawnUntilReady(
    'worker',
    program,
    command,
    { NODE_ENV: 'test', ALLOW_PRIVATE_NETWORK: 'true', WORKER_CONCURRENCY: '1', ...env, LOG_LEVEL: 'info' },
    (started) => started.output().includes('"msg":"Roomstage webhook worker running"'),
  );
  return {
    child,
    output,
    stop: () => endProcess(child, 'SIGTERM'),
    kill: () => endProcess(child, 'SIGKILL').then(() => {}),
  };
}
