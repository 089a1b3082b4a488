/** Messages of the WebSocket stream (SPEC §6), with the optional additions `id`, `speed`, `words`. */
export type ClientMessage =
  | { type: 'synthesize'; text: unknown; voice_id?: unknown; engine?: unknown; speed?: unknown; id?: unknown }
  | { type: 'cancel'; id?: unknown };

export type ServerMessage =
  | { type: 'audio'; audio: string; id?: string; words?: Array<{ word: string; start: number; end: number }> }
  | { type: 'done'; id?: string; samples: number; seconds: number; cancelled?: boolean }
  | { type: 'error'; error: string; code: string; id?: string; retry_after?: number };

export type ParsedMessage = { ok: true; message: ClientMessage } | { ok: false; error: string; id?: string };

const MAX_ID_CHARS = 128;

/** Reads one text frame; anything that is not a known message is an error the client is told about. */
export function parseClientMessage(data: string): ParsedMessage {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { ok: false, error: 'message is not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'message must be a JSON object' };
  const record = value as Record<string, unknown>;
  const id = record.id;
  if (id !== undefined && (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_CHARS)) {
    return { ok: false, error: `id must be a string of 1 to ${MAX_ID_CHARS} characters` };
  }
  if (record.type === 'synthesize' || record.type === 'cancel') return { ok: true, message: record as ClientMessage };
  return { ok: false, error: `unknown message type ${JSON.stringify(record.type ?? null)}; expected "synthesize" or "cancel"`, id };
}
