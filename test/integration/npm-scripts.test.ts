import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServerProcess, spawnWorkerProcess } from '../helpers/processes.js';

/** Every process below `pid`, found through ps (children of children too). */
function descendantsOf(pid: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of table) {
      if (ppid === parent && child !== undefined) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function allGone(pids: number[], withinMs = 20_000): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline && pids.some(alive)) await new Promise((resolve) => setTimeout(resolve, 100));
  return pids.filter(alive);
}

const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

// A container runtime or process manager signals the one PID it started: for `npm start` that is npm itself.
describe('npm start and npm run worker end on a SIGTERM to the PID they were started as', () => {
  it('npm start: the cluster primary and every app process stop and free the port', async () => {
    const server = await spawnServerProcess({ NODE_ENV: 'production', WEB_CONCURRENCY: '2' }, ['start'], 'npm');
    const npmPid = server.child.pid ?? 0;
    const below = descendantsOf(npmPid);
    leftovers.push(...below);
    expect(below.length).toBeGreaterThan(0);
    const exited = once(server.child, 'exit');
    process.kill(npmPid, 'SIGTERM');
    await exited;
    expect(await allGone(below)).toEqual([]);
    await expect(fetch(`${server.url}/api/health`)).rejects.toThrow();
    // The signal itself reached node (npm forwards it to the script, which is node thanks to `exec`)...
    expect(server.stdout()).toContain('SIGTERM received: finishing in-flight requests');
  });

  it('a server whose parent dies without signalling it shuts down too (the backstop)', async () => {
    // `sh -c` without exec: killing the shell hard orphans node, as an npm killed by SIGKILL would.
    const server = await spawnServerProcess(
      { LOG_LEVEL: 'info', WEB_CONCURRENCY: '2' },
      ['-c', `"${process.execPath}" --import tsx server/main.ts; true`],
      'sh',
    );
    const below = descendantsOf(server.child.pid ?? 0);
    leftovers.push(...below);
    process.kill(server.child.pid ?? 0, 'SIGKILL');
    expect(await allGone(below)).toEqual([]);
    expect(server.stdout()).toContain('The parent process ended: finishing the web processes');
    expect(server.stdout()).toContain('SIGTERM received: finishing in-flight requests');
  });

  it('npm run worker: the worker stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roomstage-npm-worker-'));
    const worker = await spawnWorkerProcess(
      {
        NODE_ENV: 'production',
        WORKER_CONCURRENCY: '2',
        DATABASE_URL: `sqlite:${join(dir, 'worker.db')}`,
        DATA_DIR: dir,
      },
      ['run', 'worker'],
      'npm',
    );
    const npmPid = worker.child.pid ?? 0;
    const below = descendantsOf(npmPid);
    leftovers.push(...below);
    expect(below.length).toBeGreaterThan(0);
    const exited = once(worker.child, 'exit');
    process.kill(npmPid, 'SIGTERM');
    await exited;
    expect(await allGone(below)).toEqual([]);
    expect(worker.output()).toContain('SIGTERM received: finishing deliveries and jobs in flight');
  });
});
