// Runs on `npm ci` / `npm install` (the package's "prepare" script) so the quick start stays two commands.
// An install without dev dependencies has no Vite: the service then runs API-only and says so.
import { fileURLToPath } from 'node:url';

let vite;
try {
  vite = await import('vite');
} catch {
  console.warn('voxsmith: vite is not installed (production install?); the dashboard is not built.');
  process.exit(0);
}
await vite.build({ configFile: fileURLToPath(new URL('./vite.config.ts', import.meta.url)), logLevel: 'warn' });
console.log('voxsmith: dashboard built into web/dist');
