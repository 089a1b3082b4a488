// The API's shapes are the SDK's, which are the server's own schemas: the dashboard cannot drift from either.
export type { ApiKey, CreatedApiKey, Gender, KeyScope, OwnedVoice, UsageReport, User, Voice, VoiceSource } from '../../client/index.ts';
export type { AudioFormat } from '../../client/index.ts';
export type { Lexicon, LexiconRule, LexiconSummary } from '../../client/index.ts';
export type { Job } from '../../client/index.ts';
export type { CatalogEntry, InstalledVoice, InstallJob } from '../../client/index.ts';
export type { WyomingStatus, SpeechWithTimestamps, WordTiming } from '../../client/index.ts';
