// Runs on `npm ci` / `npm install` (the package's "prepare" script) so the quick start stays two commands.
// An install without dev dependencies has no Vite: the service then runs API-only and says so.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
let vite;
try {
  vite = require.resolve('vite/bin/vite.js');
} catch {
  console.warn('voxsmith: vite is not installed (production install?); the dashboard is not built.');
  process.exit(0);
}
const config = fileURLToPath(new URL('./vite.config.ts', import.meta.url));
const result = spawnSync(process.execPath, [vite, 'build', '--config', config, '--logLevel', 'warn'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
