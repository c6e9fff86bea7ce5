// Builds the dashboard when its output is missing or older than any source file, so `npm start` and `npm test`
// work on a fresh clone with no extra step.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const output = 'build/index.js';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const sourcesChanged = () => Math.max(newestMtime('app'), statSync('remix.config.js').mtimeMs) > statSync(output).mtimeMs;

if (!existsSync(output) || sourcesChanged()) {
  console.log('Building the dashboard (remix build)…');
  execSync('npx remix build', { stdio: 'inherit' });
}
