// Liveness and readiness answers. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { ErrorBody } from './errors.ts';

export const Health = Type.Object({ status: Type.Literal('ok') }, { description: 'Up' });
export type Health = Static<typeof Health>;

const Checks = Type.Record(Type.String(), Type.Unsafe<'ok' | 'failing'>(Type.String({ enum: ['ok', 'failing'] })), {
  description: 'Each readiness check by name: "ok" or "failing"',
});

export const Readiness = Type.Object({ status: Type.Literal('ready'), checks: Checks }, { description: 'Ready' });
export type Readiness = Static<typeof Readiness>;

/** The 503 of /readyz: the error body plus which checks failed. */
export const NotReady = Type.Composite([ErrorBody, Type.Object({ status: Type.Literal('unavailable'), checks: Checks })], {
  description: 'Not ready: the error body plus `status` and `checks`',
});
export type NotReady = Static<typeof NotReady>;
