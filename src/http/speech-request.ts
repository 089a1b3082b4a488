import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';
import type { OutputFormat, SpeechRequest } from '../synth/synthesizer.ts';

export const SPEED_MIN = 0.25;
export const SPEED_MAX = 4;

export interface SpeechInput {
  text: unknown;
  voiceId?: unknown;
  speed?: unknown;
  format: OutputFormat;
  /** When given, the voice must be spoken by this engine. */
  engine?: unknown;
}

/**
 * The checks /v1/speak and the WebSocket stream share: text present and within MAX_TEXT_CHARS, speed a
 * number in range, the voice one the caller may use (built-in or their own). Throws catalogue errors.
 */
export async function resolveSpeechRequest(app: FastifyInstance, userId: string, input: SpeechInput): Promise<SpeechRequest & { voiceId: string }> {
  if (typeof input.text !== 'string') throw new AppError('validation', 'text is required and must be a string');
  if (input.text.trim().length === 0) throw new AppError('validation', 'text must not be empty');
  if (input.text.length > app.config.maxTextChars) {
    throw new AppError('text_too_long', `text is ${input.text.length} characters; the limit is ${app.config.maxTextChars}`);
  }
  const speed = input.speed ?? 1;
  if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < SPEED_MIN || speed > SPEED_MAX) {
    throw new AppError('validation', `speed must be a number from ${SPEED_MIN} to ${SPEED_MAX}`);
  }
  const voiceId = input.voiceId ?? 'default';
  if (typeof voiceId !== 'string' || voiceId.length === 0 || voiceId.length > 200) {
    throw new AppError('validation', 'voice_id must be a non-empty string');
  }
  const voice = await app.services.voices.resolve(voiceId, userId);
  if (!voice) throw new AppError('voice_not_found', `No voice "${voiceId.slice(0, 100)}"`);
  if (input.engine !== undefined && input.engine !== null) {
    if (typeof input.engine !== 'string' || !app.services.synthesizer.engines.some((e) => e.id === input.engine)) {
      throw new AppError('validation', `engine must be one of: ${app.services.synthesizer.engines.map((e) => e.id).join(', ')}`);
    }
    if (input.engine !== voice.engine) {
      throw new AppError('validation', `voice "${voice.id}" is spoken by the ${voice.engine} engine, not ${input.engine}`);
    }
  }
  return { text: input.text, voice: voice.spec, speed, format: input.format, voiceId: voice.id };
}
