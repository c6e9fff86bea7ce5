// `npm run build`, server half: compiles server/ and db/ to dist/ with tsc (type-checked, so a broken server does
// not build) and copies the files the server reads at run time (furniture and product artwork, the API reference's
// configuration).
import { execSync } from 'node:child_process';
import { cpSync, utimesSync } from 'node:fs';

execSync('npx tsc -p tsconfig.build.json', { stdio: 'inherit' });
cpSync('server/imaging/assets', 'dist/server/imaging/assets', { recursive: true });
cpSync('server/http/docs-assets', 'dist/server/http/docs-assets', { recursive: true });
// tsc's incremental build leaves unchanged outputs untouched, so dist/server/main.js could stay older than a source
// that changed elsewhere, and scripts/ensure-build.mjs (which compares it with the sources) would rebuild every time.
const now = new Date();
utimesSync('dist/server/main.js', now, now);
