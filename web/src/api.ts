import type { ApiKeySummary, AudioFormat, CreatedKey, Usage, User, Voice } from './types.ts';

/** A failed call, carrying the service's own words (`{error, code}`) for the person to read. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

interface ErrorJson {
  error?: unknown;
  code?: unknown;
}

async function failure(res: Response): Promise<ApiError> {
  let message = `The service answered ${res.status} ${res.statusText}`.trim();
  let code: string | null = null;
  try {
    const body = (await res.json()) as ErrorJson;
    if (typeof body.error === 'string') message = body.error;
    if (typeof body.code === 'string') code = body.code;
  } catch {
    // Not JSON (a proxy's error page, say): the status line is all there is.
  }
  const retry = Number(res.headers.get('retry-after'));
  if (res.status === 429 && Number.isFinite(retry) && retry > 0) message = `${message} (try again in ${retry} s)`;
  return new ApiError(message, res.status, code, Number.isFinite(retry) ? retry : null);
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  let res: Response;
  try {
    // Same-origin only: the session cookie goes along and the browser adds the Origin the service checks.
    res = await fetch(path, { credentials: 'same-origin', ...init });
  } catch {
    throw new ApiError('Could not reach the service. Check your connection and try again.', 0, 'network');
  }
  if (!res.ok) throw await failure(res);
  return res;
}

async function json<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await call(path, init);
  return (await res.json()) as T;
}

function send(method: string, body: unknown): RequestInit {
  return { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

export interface SpeakRequest {
  text: string;
  voice_id?: string;
  speed?: number;
  format?: AudioFormat;
}

export interface BreedRequest {
  parent_a: string;
  parent_b: string;
  name: string;
  mutation_rate: number;
  seed?: number;
}

export const api = {
  session: () => json<{ user: User | null }>('/api/auth/session'),
  login: (email: string) => json<{ message: string }>('/api/auth/login', send('POST', { email })),
  verify: (token: string) => json<{ user: User }>('/api/auth/verify', send('POST', { token })),
  logout: () => json<{ message: string }>('/api/auth/logout', { method: 'POST' }),

  listKeys: () => json<{ keys: ApiKeySummary[] }>('/api/auth/api-keys'),
  createKey: (name: string) => json<CreatedKey>('/api/auth/api-keys', send('POST', { name })),
  revokeKey: (id: string) => call(`/api/auth/api-keys?key_id=${encodeURIComponent(id)}`, { method: 'DELETE' }).then(() => undefined),

  voices: (filter: { language?: string; gender?: string } = {}) => {
    const q = new URLSearchParams();
    if (filter.language) q.set('language', filter.language);
    if (filter.gender) q.set('gender', filter.gender);
    const qs = q.toString();
    return json<{ voices: Voice[] }>(`/api/voices${qs ? `?${qs}` : ''}`);
  },
  searchVoices: (text: string, signal?: AbortSignal) =>
    json<{ voices: Voice[] }>(`/api/voices/search?q=${encodeURIComponent(text)}&limit=200`, { signal }),
  voice: (id: string) => json<Voice | { voice: Voice }>(`/api/voices/${encodeURIComponent(id)}`).then((b) => ('voice' in b ? b.voice : b)),
  deleteVoice: (id: string) => call(`/api/voices/${encodeURIComponent(id)}`, { method: 'DELETE' }).then(() => undefined),

  /** The audio as a Blob with the service's content type. */
  speak: async (request: SpeakRequest, signal?: AbortSignal) => {
    const res = await call('/v1/speak', { ...send('POST', request), signal });
    return res.blob();
  },
  clone: (form: FormData) => json<{ voice: Voice }>('/v1/forge/clone', { method: 'POST', body: form }),
  breed: (request: BreedRequest) => json<{ voice: Voice }>('/v1/forge/breed', send('POST', request)),

  usage: () => json<Usage>('/api/usage'),
};
