import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/**
 * npm writes `hasInstallScript: true` on the lockfile's root entry when package.json has an install script
 * (postinstall runs patch-package); a lockfile without it is rewritten by the first `npm install` of a fresh clone.
 */
it('records the root package’s install script in package-lock.json, so npm install leaves the lockfile unchanged', () => {
  const scripts: Record<string, string> = read('package.json').scripts ?? {};
  const hasInstallScript = ['preinstall', 'install', 'postinstall'].some((name) => name in scripts);
  expect(read('package-lock.json').packages[''].hasInstallScript ?? false).toBe(hasInstallScript);
});
