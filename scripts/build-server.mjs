// `npm run build`, server half: compiles server/ and db/ to dist/ with tsc (type-checked, so a broken server does
// not build) and copies the files the server reads at run time (furniture and product artwork).
import { execSync } from 'node:child_process';
import { cpSync } from 'node:fs';

execSync('npx tsc -p tsconfig.build.json', { stdio: 'inherit' });
cpSync('server/imaging/assets', 'dist/server/imaging/assets', { recursive: true });
