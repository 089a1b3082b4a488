import type { ApiKeyService } from './accounts/api-keys.ts';
import type { MagicLinkService } from './accounts/magic-links.ts';
import type { Mailer } from './accounts/mailer.ts';
import type { SessionService } from './accounts/sessions.ts';
import type { SignInService } from './accounts/sign-in.ts';
import type { UsageService } from './accounts/usage.ts';
import type { UserService } from './accounts/users.ts';
import type { OperatorPolicy } from './accounts/operators.ts';
import type { LexiconService } from './lexicons/lexicon-service.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { Db } from './store/database.ts';
import type { SpeechService } from './speech/speech-service.ts';
import type { WyomingServer } from './wyoming/server.ts';
import type { JobService } from './jobs/job-service.ts';
import type { WyomingLink } from './wyoming/link.ts';
import type { SharedState } from './store/shared-state/shared-state.ts';
import type { Synthesizer } from './synth/synthesizer.ts';
import type { VoiceLibrary } from './voices/library.ts';
import type { VoiceForge } from './forge/forge.ts';
import type { DbVoiceStore } from './voices/owned-store.ts';
import type { VoiceInstalls } from './voices/install/voice-installs.ts';
import type { VoicesDirWatch } from './voices/voices-dir-watch.ts';
import type { Shutdown } from './shutdown.ts';

/** One thing a node needs before it takes traffic (`/readyz`); `check` throws when it is not ready. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** Every service the routes use, built once by the composition root (app.ts). */
export interface Services {
  db: Db;
  /** How the node stops, in order: each part registers its stop under a phase (app.close() runs them). */
  shutdown: Shutdown;
  synthesizer: Synthesizer;
  voices: VoiceLibrary;
  /** Users' own voices (clones, bred voices) in the database. */
  ownedVoices: DbVoiceStore;
  /** Clones and breeds voices. */
  forge: VoiceForge;
  sharedState: SharedState;
  /** What `/readyz` checks; parts that need warming up (engines) add theirs. */
  readiness: ReadinessCheck[];
  mailer: Mailer;
  users: UserService;
  /** Who may install and remove voices (the first account, ADMIN_EMAILS). */
  operators: OperatorPolicy;
  magicLinks: MagicLinkService;
  /** Issues sign-in links and mails them. */
  signIn: SignInService;
  sessions: SessionService;
  apiKeys: ApiKeyService;
  usage: UsageService;
  /** Prometheus counters and histograms (`/metrics`); routes report synthesis and refusals to it. */
  metrics: Metrics;
  /** Users' pronunciation lexicons (/api/lexicons) and the rules a speech request gets from them. */
  lexicons: LexiconService;
  /** VOICES_DIR, rescanned when it changes: its natural voices are served without a restart. */
  voicesDir: VoicesDirWatch;
  /** Installs of catalogue voices run by the service (operator's page, VOICES_INSTALL). */
  voiceInstalls: VoiceInstalls;
  /** The one speech path behind /v1/speak, /v1/audio/speech and the WebSocket stream. */
  speech: SpeechService;
  /** Long-form jobs (books): accepted, rendered on every node through the job queue, served with their chapters. */
  jobs: JobService;
  /** The Wyoming TTS server, unless WYOMING_PORT is off (started once the app is ready). */
  wyoming?: WyomingServer;
  /** Which key Wyoming bills (dashboard or WYOMING_API_KEY) and the requests it served. */
  wyomingLink: WyomingLink;
}
