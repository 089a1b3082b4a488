// Every request, response and message shape of the API, in one place. Pure: only TypeBox, so the server, the
// client SDK (client/) and the dashboard (web/) import the same definitions.
export * from './errors.ts';
export * from './auth.ts';
export * from './api-keys.ts';
export * from './voices.ts';
export * from './forge.ts';
export * from './usage.ts';
export * from './health.ts';
export * from './speech.ts';
export * from './stream.ts';
export * from './lexicons.ts';
export * from './phonemize.ts';
export * from './jobs.ts';
export * from './voice-installs.ts';
export * from './wyoming.ts';
export * from './timestamps.ts';
