#!/usr/bin/env node
// Lists imports that point up the layer order and exits 1 when there is any. `--ref <commit>` reads that commit
// instead of the working tree (the before/after figures in a change's note). Layers, lowest first:
//   base     server/{clock,ids,errors,paths,version,env}.ts, server/observability/logger.ts
//   db       db/
//   infra    server/{adapters,auth,imaging,outbound,storage,limits,observability}/
//   domain   server/domain/
//   delivery server/webhooks/, server/retention/, server/mail/ (background machinery that runs domain work)
//   api      server/{trpc,services,root,response-control}.ts, server/routers/
//   http     server/http/
//   entry    server/main.ts, server/worker-main.ts, server/cluster.ts, server/heap.ts, server/cli/, app/
// An import may point to its own layer or any lower one; type-only imports count too (they couple the code).
// Routers are siblings: one imports no other router; what several share lives in server/routers/schemas.ts.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ORDER = ['base', 'db', 'infra', 'domain', 'delivery', 'api', 'http', 'entry'];

export function layerOf(file) {
  if (/^server\/(clock|ids|errors|paths|version|env)\.ts$/.test(file) || file === 'server/observability/logger.ts')
    return 'base';
  if (file.startsWith('db/')) return 'db';
  if (/^server\/(adapters|auth|imaging|outbound|storage|limits|observability)\//.test(file)) return 'infra';
  if (file.startsWith('server/domain/')) return 'domain';
  if (/^server\/(webhooks|retention|mail)\//.test(file) && !file.endsWith('worker-main.ts')) return 'delivery';
  if (/^server\/(trpc|services|root|response-control)\.ts$/.test(file) || file.startsWith('server/routers/'))
    return 'api';
  if (file.startsWith('server/http/')) return 'http';
  if (
    file.startsWith('app/') ||
    file.startsWith('server/cli/') ||
    /^server\/(main|worker-main|cluster|heap)\.ts$/.test(file) ||
    file.endsWith('worker-main.ts')
  )
    return 'entry';
  return null;
}

const isRouter = (file) => file.startsWith('server/routers/') && file !== 'server/routers/schemas.ts';

function listFiles(ref) {
  if (ref)
    return execFileSync('git', ['ls-tree', '-r', '--name-only', ref, 'server', 'db', 'app'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(full);
    }
  };
  for (const dir of ['server', 'db', 'app']) walk(dir);
  return out;
}

const read = (ref, file) =>
  ref ? execFileSync('git', ['show', `${ref}:${file}`], { encoding: 'utf8' }) : readFileSync(file, 'utf8');

export function upwardImports(ref) {
  const found = [];
  for (const file of listFiles(ref).filter((f) => /\.(ts|tsx)$/.test(f))) {
    const from = layerOf(file);
    if (!from) continue;
    for (const match of read(ref, file).matchAll(/^(?:import|export)\b[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1])).replace(/\.js$/, '.ts');
      const to = layerOf(target) ?? layerOf(target.replace(/\.ts$/, '.tsx'));
      if (to && ORDER.indexOf(to) > ORDER.indexOf(from)) found.push(`${file} (${from}) → ${target} (${to})`);
      else if (isRouter(file) && isRouter(target)) found.push(`${file} (router) → ${target} (router)`);
    }
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--ref');
  const ref = at > 0 ? process.argv[at + 1] : undefined;
  const found = upwardImports(ref);
  for (const line of found) console.log(line);
  console.log(
    `${found.length} import${found.length === 1 ? '' : 's'} pointing up the layers${ref ? ` at ${ref}` : ''}`,
  );
  process.exit(found.length === 0 ? 0 : 1);
}
