import { fileURLToPath } from 'node:url';

/**
 * The path of the module `name` in the same folder as `base` (an import.meta.url), with base's own extension:
 * worker entry files are named as paths, which the build does not rewrite, and the sources run as .ts (tsx,
 * tests) while `npm start` runs the compiled .js.
 */
export function siblingModule(base: string, name: string): string {
  const ext = new URL(base).pathname.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`./${name}${ext}`, base));
}
