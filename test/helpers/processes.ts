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

/** Sends `signal` unless the process has already ended, and waits for it to exit. */
export async function endProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/** Suites sign up dozens of accounts from 127.0.0.1 within a minute; the sign-in throttle's own tests lower these. */
export const MANY_SIGN_INS = { SIGN_IN_LIMIT_PER_IP: '100000', SIGN_IN_LIMIT_PER_EMAIL: '100000' };

/**
 * The server in a process of its own, as production runs it: `command` is the argv after `program`, node by default
 * (default: tsx on server/main.ts; `['dist/server/main.js']` runs the compiled tree; program `npm` with `['start']`
 * runs it exactly as a user does).
 */
export async function spawnServerProcess(
  env: Record<string, string>,
  command: string[] = ['--import', 'tsx', 'server/main.ts'],
  program: string = process.execPath,
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(program, command, {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'roomstage-proc-')), 'test.db')}`,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'roomstage-proc-data-')),
      ALLOW_PRIVATE_NETWORK: 'true',
      ...MANY_SIGN_INS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = () => endProcess(child, 'SIGTERM');
  const kill = () => endProcess(child, 'SIGKILL');
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stdout}${stderr}`);
    const healthy = await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) {
      return {
        child,
        url,
        stdout: () => stdout,
        logLines: () =>
          stdout
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        stop,
        kill,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${stdout}${stderr}`);
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/** `npm run worker` as production runs it (compiled JavaScript), in a process of its own; resolves once it runs. */
export async function spawnWorkerProcess(
  env: Record<string, string>,
  command: string[] = ['dist/server/worker-main.js'],
  program: string = process.execPath,
): Promise<WorkerProcess> {
  const child = spawn(program, command, {
    env: { ...process.env, NODE_ENV: 'test', ALLOW_PRIVATE_NETWORK: 'true', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const worker: WorkerProcess = {
    child,
    output: () => output,
    stop: () => endProcess(child, 'SIGTERM'),
    kill: () => endProcess(child, 'SIGKILL'),
  };
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`worker exited: ${output}`);
    if (output.includes('"msg":"Roomstage webhook worker running"')) return worker;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await worker.kill();
  throw new Error(`worker did not start: ${output}`);
}
