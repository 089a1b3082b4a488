import { TypeCompiler } from '@sinclair/typebox/compiler';
import {
  CancelMessage,
  CLIENT_MESSAGE_TYPES,
  ContextId,
  FlushMessage,
  MAX_CONTEXT_ID_CHARS,
  MAX_MESSAGE_ID_CHARS,
  MessageId,
  SynthesizeMessage,
  type ClientMessage,
} from '../../schemas/stream.ts';

export type { ClientMessage, ServerMessage } from '../../schemas/stream.ts';

/** What an error about a frame is echoed with, so the client can tell which request or context it concerns. */
export interface MessageRef {
  id?: string;
  context_id?: string;
}

/**
 * A frame that is not a message (`bad_request`: not JSON, not an object, an unknown type, a bad id) or a known
 * message with bad fields (`validation`, as for an HTTP body). `id` and `context_id` are echoed when the frame
 * carried usable ones.
 */
export type ParsedMessage =
  { ok: true; message: ClientMessage } | ({ ok: false; error: string; code: 'bad_request' | 'validation' } & MessageRef);

const checks = {
  synthesize: TypeCompiler.Compile(SynthesizeMessage),
  flush: TypeCompiler.Compile(FlushMessage),
  cancel: TypeCompiler.Compile(CancelMessage),
} as const;
const checkId = TypeCompiler.Compile(MessageId);
const checkContextId = TypeCompiler.Compile(ContextId);

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
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: 'message must be a JSON object', code: 'bad_request' };
  const { id, context_id: contextId, type } = value as Record<string, unknown>;
  if (id !== undefined && !checkId.Check(id))
    return { ok: false, error: `id must be a string of 1 to ${MAX_MESSAGE_ID_CHARS} characters`, code: 'bad_request' };
  if (contextId !== undefined && !checkContextId.Check(contextId)) {
    return {
      ok: false,
      error: `context_id must be a string of 1 to ${MAX_CONTEXT_ID_CHARS} characters`,
      code: 'bad_request',
      ...(id !== undefined ? { id } : {}),
    };
  }
  const ref: MessageRef = { ...(id !== undefined ? { id } : {}), ...(contextId !== undefined ? { context_id: contextId } : {}) };
  if (!isClientType(type)) {
    return {
      ok: false,
      error: `unknown message type ${JSON.stringify(type ?? null)}; expected one of: ${CLIENT_MESSAGE_TYPES.join(', ')}`,
      code: 'bad_request',
      ...ref,
    };
  }
  const check = checks[type];
  if (!check.Check(value)) {
    const first = check.Errors(value).First();
    const field = first?.path ? first.path.slice(1).replace(/\//g, '.') : 'message';
    return { ok: false, error: `${field}: ${first?.message ?? 'is invalid'}`, code: 'validation', ...ref };
  }
  const message = value as ClientMessage;
  // Rules across fields, which the schemas (kept plain for clients and OpenAPI) do not state.
  if (message.type !== 'flush' && message.id !== undefined && message.context_id !== undefined) {
    return { ok: false, error: 'give either id (a whole request) or context_id (input streaming), not both', code: 'validation', ...ref };
  }
  if (message.type === 'synthesize' && message.continue !== undefined && message.context_id === undefined) {
    return { ok: false, error: 'continue needs a context_id: pieces accumulate per context', code: 'validation', ...ref };
  }
  return { ok: true, message };
}
