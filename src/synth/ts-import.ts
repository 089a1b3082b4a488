// On Node 20, tsx installs its ESM hooks on the main thread only (from Node 22 on, in every thread).
// A piscina worker is loaded through tsx's require hook, so its static imports work, but a dynamic
// import() of a .ts file reaches Node's ESM loader unhooked and fails, and the failure is cached for
// that URL. So a throwaway URL (this file with a query) is imported first; if that fails, tsx's ESM
// hooks are installed in this thread before any real import.
let ready: Promise<void> | undefined;

function isUnknownExtension(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ERR_UNKNOWN_FILE_EXTENSION';
}

async function ensureTsImports(): Promise<void> {
  try {
    await import(`${import.meta.url}?probe`);
  } catch (err) {
    if (!isUnknownExtension(err)) throw err;
    const api = await import('tsx/esm/api');
    api.register();
  }
}

/** Runs a dynamic import of a .ts module, making sure this thread can import TypeScript first. */
export async function importTs<T>(load: () => Promise<T>): Promise<T> {
  ready ??= ensureTsImports();
  await ready;
  return load();
}
