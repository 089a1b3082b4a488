import { TypeCompiler } from '@sinclair/typebox/compiler';
import { CancelMessage, CLIENT_MESSAGE_TYPES, MAX_MESSAGE_ID_CHARS, MessageId, SynthesizeMessage, type ClientMessage } from '../../schemas/stream.ts';

export type { ClientMessage, ServerMessage } from '../../schemas/stream.ts';

/**
 * A frame that is not a message (`bad_request`: not JSON, not an object, an unknown type, a bad id) or a known
 * message with bad fields (`validation`, as for an HTTP body). `id` is echoed when the frame carried a usable one.
 */
export type ParsedMessage = { ok: true; message: ClientMessage } | { ok: false; error: string; code: 'bad_request' | 'validation'; id?: string };

const checks = { synthesize: TypeCompiler.Compile(SynthesizeMessage), cancel: TypeCompiler.Compile(CancelMessage) } as const;
const checkId = TypeCompiler.Compile(MessageId);

function isClientType(value: unknown): value is keyof typeof checks {
  return (CLIENT_MESSAGE_TYPES as readonly unknown[]).includes(value);
}

/** Reads one text frame against the stream's schemas; anything that is not a known message is an error the client is told about. */
export function parseClientMessage(data: string): ParsedMessage {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { ok: false, error: 'message is not valid JSON', code: 'bad_request' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'message must be a JSON object', code: 'bad_request' };
  const { id, type } = value as Record<string, unknown>;
  const idOk = checkId.Check(id);
  if (id !== undefined && !idOk) return { ok: false, error: `id must be a string of 1 to ${MAX_MESSAGE_ID_CHARS} characters`, code: 'bad_request' };
  const idPart = idOk ? { id } : {};
  if (!isClientType(type)) {
    return { ok: false, error: `unknown message type ${JSON.stringify(type ?? null)}; expected "synthesize" or "cancel"`, code: 'bad_request', ...idPart };
  }
  const check = checks[type];
  if (check.Check(value)) return { ok: true, message: value };
  const first = check.Errors(value).First();
  const field = first?.path ? first.path.slice(1).replace(/\//g, '.') : 'message';
  return { ok: false, error: `${field}: ${first?.message ?? 'is invalid'}`, code: 'validation', ...idPart };
}
