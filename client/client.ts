// A typed client for every Voxsmith endpoint. Runs in browsers and in Node 18+ (global fetch); no Node imports.
import { errorFromResponse, VoxsmithError } from './errors.ts';
import { SpeechStream, STREAM_SAMPLE_RATE, type StreamOptions, type WebSocketClass } from './stream.ts';
import type {
  ChapterIndex,
  CatalogList,
  InstalledList,
  InstallList,
  InstallResponse,
  Removed,
  ForgedVoice,
  Health,
  ChapterRedoBody,
  Job,
  JobCreateBody,
  JobDeleted,
  JobList,
  KeyList,
  Lexicon,
  LexiconDeleted,
  LexiconList,
  LexiconResponse,
  LexiconRule,
  LexiconSummary,
  Message,
  PhonemizeBody,
  PhonemizeResponse,
  Readiness,
  RevokedKey,
  SessionResponse,
  SpeechWithTimestamps,
  VerifyResponse,
  VoiceDeleted,
  VoiceList,
  VoiceResponse,
  WyomingStatus,
} from '../src/schemas/index.ts';
import type {
  ApiKey,
  BreedRequest,
  CatalogEntry,
  CloneRequest,
  InstalledVoice,
  InstallJob,
  CreatedApiKey,
  JobUploadRequest,
  CreateKeyRequest,
  OpenAISpeechRequest,
  OwnedVoice,
  SpeakRequest,
  SpeechAudio,
  StreamRequest,
  StreamResult,
  UsageReport,
  User,
  Voice,
  VoiceFilter,
} from './types.ts';

export interface ClientOptions {
  /** Where the service is, e.g. `http://localhost:8080` (no trailing /api or /v1). */
  baseUrl: string;
  /** An API key (`service_sk_…`), sent as a Bearer header and as the stream's token. Never ship one to a browser. */
  apiKey?: string;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
  /** The WebSocket class for `stream`; the global one by default. Node 20 has none: pass `ws`'s. */
  WebSocket?: WebSocketClass;
  /** Sent with every HTTP request, e.g. `{ cookie, origin }` for a Node client using a dashboard session. */
  headers?: Record<string, string>;
  /** Browsers: whether the session cookie goes along (`include` for another origin); `same-origin` by default. */
  credentials?: 'omit' | 'same-origin' | 'include';
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** The headers of a streamed speech answer, with its body still to be read. */
export interface SpeechResponse {
  body: ReadableStream<Uint8Array>;
  contentType: string;
  sampleRate: number;
  voiceId: string;
}

type Query = Record<string, string | number | undefined>;

interface Call {
  method?: string;
  query?: Query;
  json?: unknown;
  body?: FormData | string;
  /** The body's content type, when it is a string. */
  contentType?: string;
  signal?: AbortSignal;
}

export class VoxsmithClient {
  readonly baseUrl: string;
  private readonly options: ClientOptions;

  constructor(options: ClientOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** The same client with another API key (or none). */
  withApiKey(apiKey: string | undefined): VoxsmithClient {
    return new VoxsmithClient({ ...this.options, apiKey });
  }

  // --- Sign-in (the dashboard's cookie session) ---

  /** Mails a one-time sign-in link; the answer is the same whether or not the address is known. */
  login(email: string, options: RequestOptions = {}): Promise<Message> {
    return this.json('/api/auth/login', { method: 'POST', json: { email }, ...options });
  }

  /**
   * Consumes the link's token and starts a session. Browsers keep the httpOnly cookie themselves; in Node,
   * `sessionCookie` is the `name=value` to send back in a `cookie` header.
   */
  async verify(token: string, options: RequestOptions = {}): Promise<{ user: User; sessionCookie?: string }> {
    const res = await this.send('/api/auth/verify', { method: 'POST', json: { token }, ...options });
    const body = (await res.json()) as VerifyResponse;
    const setCookie = typeof res.headers.getSetCookie === 'function' ? res.headers.getSetCookie() : [];
    const cookie = setCookie.find((c) => /^(__Host-)?vox_session=/.test(c))?.split(';')[0];
    return cookie ? { user: body.user, sessionCookie: cookie } : { user: body.user };
  }

  async session(options: RequestOptions = {}): Promise<User | null> {
    return (await this.json<SessionResponse>('/api/auth/session', options)).user;
  }

  logout(options: RequestOptions = {}): Promise<Message> {
    return this.json('/api/auth/logout', { method: 'POST', ...options });
  }

  // --- API keys ---

  /**
   * A new key: a name, or `{name, scopes}` to bound what it may do (`['speech']` for a key that only speaks; all
   * four scopes when absent). Needs a session or a key with the `keys` scope, holding every scope it gives.
   */
  createKey(request: string | CreateKeyRequest, options: RequestOptions = {}): Promise<CreatedApiKey> {
    const json: CreateKeyRequest = typeof request === 'string' ? { name: request } : request;
    return this.json('/api/auth/api-keys', { method: 'POST', json, ...options });
  }

  async listKeys(options: RequestOptions = {}): Promise<ApiKey[]> {
    return (await this.json<KeyList>('/api/auth/api-keys', options)).keys;
  }

  revokeKey(keyId: string, options: RequestOptions = {}): Promise<RevokedKey> {
    return this.json('/api/auth/api-keys', { method: 'DELETE', json: { key_id: keyId }, ...options });
  }

  // --- Voices ---

  async listVoices(filter: VoiceFilter = {}, options: RequestOptions = {}): Promise<Voice[]> {
    return (await this.json<VoiceList>('/api/voices', { query: { ...filter }, ...options })).voices;
  }

  async searchVoices(q: string, search: { limit?: number } = {}, options: RequestOptions = {}): Promise<Voice[]> {
    return (await this.json<VoiceList>('/api/voices/search', { query: { q, limit: search.limit }, ...options })).voices;
  }

  /** A built-in voice, or one of your own with its genome. */
  async getVoice(id: string, options: RequestOptions = {}): Promise<OwnedVoice> {
    return (await this.json<VoiceResponse>(`/api/voices/${encodeURIComponent(id)}`, options)).voice;
  }

  deleteVoice(id: string, options: RequestOptions = {}): Promise<VoiceDeleted> {
    return this.json(`/api/voices/${encodeURIComponent(id)}`, { method: 'DELETE', ...options });
  }

  // --- Natural voices (the service's operator: its first account, or one in ADMIN_EMAILS) ---

  /** The catalogue of installable natural voices (Piper's catalogue and the Kokoro bundles), filtered. */
  async voiceCatalog(
    query: { language?: string; quality?: string; engine?: string } = {},
    options: RequestOptions = {},
  ): Promise<CatalogEntry[]> {
    return (await this.json<CatalogList>('/api/admin/voices/catalog', { query, ...options })).voices;
  }

  /** What VOICES_DIR holds, with the voice ids each adds. */
  async installedVoices(options: RequestOptions = {}): Promise<InstalledVoice[]> {
    return (await this.json<InstalledList>('/api/admin/voices/installed', options)).voices;
  }

  /** Starts installing a catalogue voice; follow it with voiceInstalls(). */
  async installVoice(name: string, options: RequestOptions = {}): Promise<InstallJob> {
    return (await this.json<InstallResponse>('/api/admin/voices/installs', { method: 'POST', json: { name }, ...options })).install;
  }

  /** Installs running, and those finished in the last minutes. */
  async voiceInstalls(options: RequestOptions = {}): Promise<InstallJob[]> {
    return (await this.json<InstallList>('/api/admin/voices/installs', options)).installs;
  }

  uninstallVoice(name: string, options: RequestOptions = {}): Promise<Removed> {
    return this.json(`/api/admin/voices/installed/${encodeURIComponent(name)}`, { method: 'DELETE', ...options });
  }

  // --- Pronunciation lexicons ---

  async listLexicons(options: RequestOptions = {}): Promise<LexiconSummary[]> {
    return (await this.json<LexiconList>('/api/lexicons', options)).lexicons;
  }

  async getLexicon(name: string, options: RequestOptions = {}): Promise<Lexicon> {
    return (await this.json<LexiconResponse>(`/api/lexicons/${encodeURIComponent(name)}`, options)).lexicon;
  }

  /** `makeDefault` makes it the lexicon used when a request names none. */
  async createLexicon(name: string, rules: LexiconRule[], makeDefault?: boolean, options: RequestOptions = {}): Promise<Lexicon> {
    const json = makeDefault === undefined ? { name, rules } : { name, rules, default: makeDefault };
    return (await this.json<LexiconResponse>('/api/lexicons', { method: 'POST', json, ...options })).lexicon;
  }

  async replaceLexicon(name: string, rules: LexiconRule[], options: RequestOptions = {}): Promise<Lexicon> {
    return (await this.json<LexiconResponse>(`/api/lexicons/${encodeURIComponent(name)}`, { method: 'PUT', json: { rules }, ...options }))
      .lexicon;
  }

  /** Renames it and/or sets or clears the account default. */
  async updateLexicon(name: string, change: { name?: string; default?: boolean }, options: RequestOptions = {}): Promise<Lexicon> {
    return (await this.json<LexiconResponse>(`/api/lexicons/${encodeURIComponent(name)}`, { method: 'PATCH', json: change, ...options }))
      .lexicon;
  }

  deleteLexicon(name: string, options: RequestOptions = {}): Promise<LexiconDeleted> {
    return this.json(`/api/lexicons/${encodeURIComponent(name)}`, { method: 'DELETE', ...options });
  }

  /** Creates or replaces the lexicon `name` from a W3C PLS document (XML text). */
  async importPls(name: string, xml: string, options: RequestOptions = {}): Promise<Lexicon> {
    const path = `/api/lexicons/${encodeURIComponent(name)}/pls`;
    return (await this.json<LexiconResponse>(path, { method: 'PUT', body: xml, contentType: 'application/pls+xml', ...options })).lexicon;
  }

  /** The normalized text and each word's phonemes, as the voice's engine will get them. */
  phonemize(request: PhonemizeBody, options: RequestOptions = {}): Promise<PhonemizeResponse> {
    return this.json('/v1/phonemize', { method: 'POST', json: request, ...options });
  }

  // --- Forge ---

  async clone(request: CloneRequest, options: RequestOptions = {}): Promise<OwnedVoice> {
    const form = new FormData();
    form.set('name', request.name);
    if (request.language !== undefined) form.set('language', request.language);
    if (request.transcript !== undefined) form.set('transcript', request.transcript);
    form.set('audio', request.audio, request.filename ?? 'sample');
    return (await this.json<ForgedVoice>('/v1/forge/clone', { method: 'POST', body: form, ...options })).voice;
  }

  async breed(request: BreedRequest, options: RequestOptions = {}): Promise<OwnedVoice> {
    return (await this.json<ForgedVoice>('/v1/forge/breed', { method: 'POST', json: request, ...options })).voice;
  }

  // --- Speech ---

  /** The whole audio file, once synthesis has finished. */
  async speak(request: SpeakRequest, options: RequestOptions = {}): Promise<SpeechAudio> {
    return this.audio(await this.send('/v1/speak', { method: 'POST', json: request, ...options }));
  }

  /** The whole audio (base64) with the time of every word and SSML mark in it, once synthesis has finished. */
  speakWithTimestamps(request: SpeakRequest, options: RequestOptions = {}): Promise<SpeechWithTimestamps> {
    return this.json('/v1/speak/with-timestamps', { method: 'POST', json: request, ...options });
  }

  /** The audio as it is synthesized: play or save `body` while it arrives. */
  async speakStream(request: SpeakRequest, options: RequestOptions = {}): Promise<SpeechResponse> {
    const res = await this.send('/v1/speak', { method: 'POST', json: request, ...options });
    if (!res.body) throw new VoxsmithError('the response has no body', res.status, undefined, res.headers.get('x-request-id') ?? undefined);
    return { body: res.body, ...this.audioHeaders(res) };
  }

  /**
   * A voice's preview (MP3 of its language's fixed line, or `language`'s): with a key or a signed-in session,
   * served from the server's cache and not counted as usage.
   */
  async previewVoice(voiceId: string, options: RequestOptions & { language?: string } = {}): Promise<SpeechAudio> {
    const { language, ...rest } = options;
    return this.audio(await this.send(`/api/voices/${encodeURIComponent(voiceId)}/preview`, { query: { language }, ...rest }));
  }

  /** OpenAI's speech API as this service offers it (/v1/audio/speech). */
  async openaiSpeech(request: OpenAISpeechRequest, options: RequestOptions = {}): Promise<SpeechAudio> {
    return this.audio(await this.send('/v1/audio/speech', { method: 'POST', json: request, ...options }));
  }

  /**
   * Streams speech over a WebSocket of its own: yields float32 chunks (24 000 Hz mono) as the server
   * produces them and returns its totals. Breaking out of the loop or aborting cancels the synthesis.
   */
  async *stream(request: StreamRequest, options: StreamOptions = {}): AsyncGenerator<Float32Array, StreamResult> {
    const connection = await this.openStream();
    try {
      return yield* connection.synthesize(request, options);
    } finally {
      connection.close();
    }
  }

  /** A stream connection for several requests in a row (they are spoken in order). */
  openStream(): Promise<SpeechStream> {
    const WebSocketImpl = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketClass }).WebSocket;
    if (!WebSocketImpl) {
      throw new VoxsmithError(
        'No WebSocket class: pass one as the WebSocket option (in Node 20, the ws package)',
        0,
        'no_websocket',
        undefined,
      );
    }
    const url = new URL(`${this.baseUrl}/v1/ws/stream`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    if (this.options.apiKey) url.searchParams.set('token', this.options.apiKey);
    return SpeechStream.open(url.href, WebSocketImpl);
  }

  // --- Long-form jobs (books) ---

  /** Starts a job from text (plain, Markdown, HTML or SSML): answers at once with the job, queued. */
  createJob(request: JobCreateBody, options: RequestOptions = {}): Promise<Job> {
    return this.json('/v1/jobs', { method: 'POST', json: request, ...options });
  }

  /** Starts a job from a file (.txt, .md, .html, .ssml or .epub; `filename` tells which, unless `text_type` does). */
  uploadJob(request: JobUploadRequest, options: RequestOptions = {}): Promise<Job> {
    const form = new FormData();
    for (const [name, value] of Object.entries(request)) {
      if (value === undefined || name === 'file' || name === 'filename') continue;
      form.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    form.set('file', request.file, request.filename);
    return this.json('/v1/jobs', { method: 'POST', body: form, ...options });
  }

  async listJobs(options: RequestOptions = {}): Promise<Job[]> {
    return (await this.json<JobList>('/v1/jobs', options)).jobs;
  }

  getJob(id: string, options: RequestOptions = {}): Promise<Job> {
    return this.json(`/v1/jobs/${encodeURIComponent(id)}`, options);
  }

  /** Titles, lengths and start times of the chapters in the whole book. */
  jobChapters(id: string, options: RequestOptions = {}): Promise<ChapterIndex> {
    return this.json(`/v1/jobs/${encodeURIComponent(id)}/chapters`, options);
  }

  /**
   * Renders one chapter of a done job again (with another voice, speed or lexicons when given), then the
   * book's files: answers at once with the job, running again.
   */
  redoChapter(id: string, n: number, request: ChapterRedoBody = {}, options: RequestOptions = {}): Promise<Job> {
    return this.json(`/v1/jobs/${encodeURIComponent(id)}/chapters/${n}/render`, { method: 'POST', json: request, ...options });
  }

  /** Cancels the job (if it still runs) and deletes it with its audio. */
  deleteJob(id: string, options: RequestOptions = {}): Promise<JobDeleted> {
    return this.json(`/v1/jobs/${encodeURIComponent(id)}`, { method: 'DELETE', ...options });
  }

  /**
   * Follows a job over its Server-Sent Events: yields the job at once and at each change, and returns when it
   * is done, has failed or was cancelled (the last value yielded says which).
   */
  async *watchJob(id: string, options: RequestOptions = {}): AsyncGenerator<Job | { id: string; status: 'cancelled' }> {
    const res = await this.send(`/v1/jobs/${encodeURIComponent(id)}/events`, { ...options }, { accept: 'text/event-stream' });
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          // A `warning` (pieces that failed their checks) is not a state of the job: the job's `checks` say it too.
          if (block.split('\n').includes('event: warning')) continue;
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data !== '') yield JSON.parse(data) as Job;
        }
      }
    } finally {
      reader.releaseLock();
      await res.body.cancel().catch(() => undefined);
    }
  }

  /** The whole book's audio (once the job is done); `range` asks for bytes [start, end] only. */
  async jobAudio(
    id: string,
    options: RequestOptions & { chapter?: number; range?: { start: number; end?: number } } = {},
  ): Promise<SpeechAudio> {
    const { chapter, range, ...rest } = options;
    const path =
      chapter === undefined ? `/v1/jobs/${encodeURIComponent(id)}/audio` : `/v1/jobs/${encodeURIComponent(id)}/chapters/${chapter}/audio`;
    const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end ?? ''}` } : {};
    return this.audio(await this.send(path, { ...rest }, headers));
  }

  /** The URL of a job's audio (the book, or one chapter), e.g. for an <audio> element beside a session cookie. */
  jobAudioUrl(id: string, chapter?: number): string {
    return chapter === undefined
      ? `${this.baseUrl}/v1/jobs/${encodeURIComponent(id)}/audio`
      : `${this.baseUrl}/v1/jobs/${encodeURIComponent(id)}/chapters/${chapter}/audio`;
  }

  // --- Home Assistant (Wyoming) ---

  /** Where the Wyoming server listens, which key it bills, and the last requests it served. */
  wyoming(options: RequestOptions = {}): Promise<WyomingStatus> {
    return this.json('/api/wyoming', options);
  }

  /** Bills Wyoming's use to one of your keys, at once (no restart). */
  connectWyoming(keyId: string, options: RequestOptions = {}): Promise<WyomingStatus> {
    return this.json('/api/wyoming', { method: 'PUT', json: { key_id: keyId }, ...options });
  }

  disconnectWyoming(options: RequestOptions = {}): Promise<WyomingStatus> {
    return this.json('/api/wyoming', { method: 'DELETE', ...options });
  }

  // --- Account and operations ---

  /** The last `days` days (a number), or a range of UTC days `{from, to}` (YYYY-MM-DD). */
  usage(range?: number | { days?: number; from?: string; to?: string }, options: RequestOptions = {}): Promise<UsageReport> {
    const query = typeof range === 'number' || range === undefined ? { days: range } : range;
    return this.json('/api/usage', { query, ...options });
  }

  /** The URL of the usage report as CSV (one row per day and key), e.g. for a download link beside a session cookie. */
  usageCsvUrl(range: { days?: number; from?: string; to?: string } = {}): string {
    const url = new URL(`${this.baseUrl}/api/usage`);
    for (const [k, v] of Object.entries(range)) if (v !== undefined) url.searchParams.set(k, String(v));
    url.searchParams.set('format', 'csv');
    return url.href;
  }

  health(options: RequestOptions = {}): Promise<Health> {
    return this.json('/healthz', options);
  }

  ready(options: RequestOptions = {}): Promise<Readiness> {
    return this.json('/readyz', options);
  }

  /** The Prometheus text; `token` is METRICS_TOKEN when the service sets one. */
  async metrics(token?: string, options: RequestOptions = {}): Promise<string> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const res = await this.send('/metrics', { ...options }, headers, false);
    return res.text();
  }

  /** The OpenAPI 3.1 document. */
  openapi(options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return this.json('/openapi.json', options);
  }

  // --- Plumbing ---

  private async json<T>(path: string, call: Call = {}): Promise<T> {
    return (await (await this.send(path, call)).json()) as T;
  }

  private async audio(res: Response): Promise<SpeechAudio> {
    return { audio: new Uint8Array(await res.arrayBuffer()), ...this.audioHeaders(res) };
  }

  private audioHeaders(res: Response): Omit<SpeechResponse, 'body'> {
    return {
      contentType: res.headers.get('content-type') ?? 'application/octet-stream',
      sampleRate: Number(res.headers.get('x-sample-rate') ?? STREAM_SAMPLE_RATE),
      voiceId: res.headers.get('x-voice-id') ?? '',
    };
  }

  private async send(path: string, call: Call, extraHeaders: Record<string, string> = {}, withKey = true): Promise<Response> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...extraHeaders };
    if (withKey && this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let body: string | FormData | undefined = call.body;
    if (call.contentType !== undefined) headers['content-type'] = call.contentType;
    if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    }
    const doFetch = this.options.fetch ?? fetch;
    let res: Response;
    try {
      res = await doFetch(url, {
        method: call.method ?? 'GET',
        headers,
        body,
        signal: call.signal,
        credentials: this.options.credentials ?? 'same-origin',
      });
    } catch (err) {
      if (call.signal?.aborted) throw err;
      throw new VoxsmithError(
        `Could not reach ${url.origin}: ${err instanceof Error ? err.message : String(err)}`,
        0,
        'network',
        undefined,
      );
    }
    if (!res.ok) throw await errorFromResponse(res);
    return res;
  }
}
