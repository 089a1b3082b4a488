// Voxsmith's TypeScript client: every endpoint typed, errors as VoxsmithError, speech streamed as float32.
export { VoxsmithClient, type ClientOptions, type RequestOptions, type SpeechResponse } from './client.ts';
export { VoxsmithError } from './errors.ts';
export { decodeFloat32, SpeechStream, STREAM_SAMPLE_RATE, type StreamOptions, type WebSocketClass } from './stream.ts';
export { SPEECH_FORMATS, SPEED_MAX, SPEED_MIN } from '../src/schemas/speech.ts';
export { KEY_SCOPES } from '../src/schemas/api-keys.ts';
export type * from './types.ts';
