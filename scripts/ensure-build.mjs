// Builds what is missing or older than its sources, so `npm install && npm start` (and `npm test`) work on a fresh
// clone with no extra step: the dashboard (remix build → build/) and the server (tsc → dist/).
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  if (!statSync(path).isDirectory()) return statSync(path).mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true }))
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  return newest;
}

const stale = (output, sources) =>
  !existsSync(output) || Math.max(...sources.map(newestMtime)) > statSync(output).mtimeMs;

if (stale('build/index.js', ['app', 'shared', 'remix.config.js'])) {
  console.log('Building the dashboard (remix build)…');
  execSync('npx remix build', { stdio: 'inherit' });
}
// The server also compiles shared/ (rules the dashboard runs in the browser too); tsc's own build info keeps a
// rebuild of unchanged files cheap.
if (
  stale('dist/server/main.js', [
    'server',
    'shared',
    'db',
    'types',
    'tsconfig.json',
    'tsconfig.build.json',
    'package.json',
  ])
) {
  console.log('Building the server (tsc → dist/)…');
  execSync('node scripts/build-server.mjs', { stdio: 'inherit' });
}
