#!/usr/bin/env node
// Lists imports that break the layer rules and exits 1 when there is any. `--ref <commit>` reads that commit
// instead of the working tree (the before/after figures in a change's note). Layers, lowest first:
//   base     shared/ (import-free rules the browser runs too), server/{clock,ids,errors,paths,version,env}.ts,
//            server/observability/logger.ts
//   db       db/
//   infra    server/{adapters,auth,imaging,outbound,storage,limits,observability}/
//   domain   server/domain/
//   delivery server/domain/<feature>/delivery/ (a feature's background machinery: webhook and mail delivery),
//            server/retention/ (background machinery that runs domain work)
//   api      server/{trpc,services,root,response-control}.ts, server/trpc/, server/routers/
//   http     server/http/
//   entry    server/main.ts, server/worker-main.ts, server/cluster.ts, server/heap.ts, server/cli/
// An import may point to its own layer or any lower one; type-only imports count too (they couple the code).
// Every import is seen: relative ones, tsconfig path aliases (`~/…`) and dynamic `import('…')`.
// Routers are siblings: one imports no other router; what several share lives in server/routers/schemas.ts.
// Domain folders (server/domain/<area>/) never point at each other in a loop: what two areas both need lives in a
//   third that needs neither (e.g. server/domain/disclosure/, which keys, settings and staging all read).
// The dashboard (app/) is its own bundle: it imports app/ and shared/ only. Routes reach server code through the
//   load context (app/load-context.ts, the one file allowed a type-only import of server/root.ts).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ORDER = ['base', 'db', 'infra', 'domain', 'delivery', 'api', 'http', 'entry'];
const ROOTS = ['server', 'db', 'app', 'shared'];

export function layerOf(file) {
  if (file.startsWith('shared/')) return 'base';
  if (/^server\/(clock|ids|errors|paths|version|env)\.ts$/.test(file) || file === 'server/observability/logger.ts')
    return 'base';
  if (file.startsWith('db/')) return 'db';
  if (/^server\/(adapters|auth|imaging|outbound|storage|limits|observability)\//.test(file)) return 'infra';
  if (/^server\/domain\/[^/]+\/delivery\//.test(file) || file.startsWith('server/retention/')) return 'delivery';
  if (file.startsWith('server/domain/')) return 'domain';
  if (/^server\/(trpc|services|root|response-control)\.ts$/.test(file) || /^server\/(trpc|routers)\//.test(file))
    return 'api';
  if (file.startsWith('server/http/')) return 'http';
  if (file.startsWith('server/cli/') || /^server\/(main|worker-main|cluster|heap)\.ts$/.test(file)) return 'entry';
  return null;
}

const isRouter = (file) => file.startsWith('server/routers/') && file !== 'server/routers/schemas.ts';
const domainArea = (file) => /^server\/domain\/([^/]+)\//.exec(file)?.[1] ?? null;

function listFiles(ref) {
  if (ref)
    return execFileSync('git', ['ls-tree', '-r', '--name-only', ref, ...ROOTS], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  const out = [];
  const walk = (dir) => {
    let names;
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.posix.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(full);
    }
  };
  for (const dir of ROOTS) walk(dir);
  return out;
}

const read = (ref, file) =>
  ref ? execFileSync('git', ['show', `${ref}:${file}`], { encoding: 'utf8' }) : readFileSync(file, 'utf8');

/** tsconfig's `paths` as [prefix, replacement] pairs (`~/*` → `./app/*` gives ['~/', 'app/']). */
function aliases(ref) {
  let config;
  try {
    // tsconfig.json is JSON with comments allowed; ours has none, but strip line comments to be safe.
    config = JSON.parse(read(ref, 'tsconfig.json').replace(/^\s*\/\/.*$/gm, ''));
  } catch {
    return [];
  }
  const paths = config.compilerOptions?.paths ?? {};
  const base = config.compilerOptions?.baseUrl ?? '.';
  return Object.entries(paths).map(([pattern, [target]]) => [
    pattern.replace(/\*$/, ''),
    path.posix.normalize(path.posix.join(base, target.replace(/\*$/, ''))).replace(/^\.\//, ''),
  ]);
}

/** Every module specifier the file imports, with whether the import is type-only. */
export function importsOf(source) {
  const found = [];
  const statements = /^\s*(import|export)\s+(type\s+)?([^;'"]*?\bfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(statements)) found.push({ spec: match[4], typeOnly: Boolean(match[2]) });
  for (const match of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g))
    found.push({ spec: match[1], typeOnly: false });
  return found;
}

/** The repository file a specifier points to, or null for a package. */
function resolve(file, spec, alias) {
  let target = null;
  if (spec.startsWith('.')) target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  else {
    const hit = alias.find(([prefix]) => spec.startsWith(prefix));
    if (hit) target = hit[1] + spec.slice(hit[0].length);
    else if (ROOTS.some((root) => spec.startsWith(`${root}/`))) target = spec;
  }
  return target ? target.replace(/\.js$/, '.ts') : null;
}

export function upwardImports(ref) {
  const found = [];
  const alias = aliases(ref);
  const areaEdges = new Map();
  for (const file of listFiles(ref).filter((f) => /\.(ts|tsx)$/.test(f))) {
    const from = layerOf(file);
    const inApp = file.startsWith('app/');
    if (!from && !inApp) continue;
    for (const { spec, typeOnly } of importsOf(read(ref, file))) {
      const target = resolve(file, spec, alias);
      if (!target) continue;
      if (inApp) {
        const allowed =
          target.startsWith('app/') ||
          target.startsWith('shared/') ||
          (file === 'app/load-context.ts' && typeOnly && target === 'server/root.ts');
        if (!allowed) found.push(`${file} (app) → ${target} (routes reach the server only through the load context)`);
        continue;
      }
      if (file.startsWith('shared/')) {
        found.push(`${file} (shared) → ${target} (shared rules import nothing)`);
        continue;
      }
      const to = layerOf(target) ?? layerOf(target.replace(/\.ts$/, '.tsx'));
      if (target.startsWith('app/')) found.push(`${file} (${from}) → ${target} (app)`);
      else if (to && ORDER.indexOf(to) > ORDER.indexOf(from)) found.push(`${file} (${from}) → ${target} (${to})`);
      else if (isRouter(file) && isRouter(target)) found.push(`${file} (router) → ${target} (router)`);
      const [a, b] = [domainArea(file), domainArea(target)];
      if (from === 'domain' && to === 'domain' && a && b && a !== b) {
        if (!areaEdges.has(a)) areaEdges.set(a, new Map());
        if (!areaEdges.get(a).has(b)) areaEdges.get(a).set(b, `${file} → ${target}`);
      }
    }
  }
  found.push(...domainLoops(areaEdges));
  return found;
}

/** Each pair of domain areas that reach each other (directly or through others), named by one import each way. */
function domainLoops(edges) {
  const reach = (start) => {
    const seen = new Set();
    const stack = [start];
    while (stack.length) {
      for (const next of edges.get(stack.pop())?.keys() ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    return seen;
  };
  const loops = [];
  for (const [area, targets] of edges) {
    for (const [target, example] of targets) {
      if (reach(target).has(area))
        loops.push(`${example} (domain ${area} → ${target}, and ${target} reaches ${area} back)`);
    }
  }
  return loops;
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
