/** The service's public settings, put into index.html as a meta tag by the route that serves the app. */
export interface AppConfig {
  mail: 'smtp' | 'outbox';
  outbox: string | null;
  maxTextChars: number;
}

const FALLBACK: AppConfig = { mail: 'smtp', outbox: null, maxTextChars: 10_000 };

function read(): AppConfig {
  const raw = document.querySelector('meta[name="voxsmith-config"]')?.getAttribute('content');
  if (!raw) return FALLBACK;
  try {
    const parsed = JSON.parse(raw) as Partial<AppConfig>;
    return {
      mail: parsed.mail === 'outbox' ? 'outbox' : 'smtp',
      outbox: typeof parsed.outbox === 'string' ? parsed.outbox : null,
      maxTextChars: typeof parsed.maxTextChars === 'number' ? parsed.maxTextChars : FALLBACK.maxTextChars,
    };
  } catch {
    return FALLBACK;
  }
}

export const appConfig: AppConfig = read();
