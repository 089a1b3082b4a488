// Passwordless sign-in: the magic-link and session bodies. Pure: only TypeBox.
import { Type, type Static } from '@sinclair/typebox';

export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  plan: Type.String(),
  operator: Type.Optional(
    Type.Boolean({ description: 'Operates this service (installs voices): its first account, or one in ADMIN_EMAILS' }),
  ),
});
export type User = Static<typeof User>;

export const LoginBody = Type.Object({ email: Type.String({ maxLength: 320 }) }, { examples: [{ email: 'you@example.com' }] });
export type LoginBody = Static<typeof LoginBody>;

/** A sentence for people: the answer of login and logout. */
export const Message = Type.Object({ message: Type.String() });
export type Message = Static<typeof Message>;

export const VerifyBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the e-mailed link' }),
});
export type VerifyBody = Static<typeof VerifyBody>;

export const VerifyResponse = Type.Object({ user: User });
export type VerifyResponse = Static<typeof VerifyResponse>;

export const SessionResponse = Type.Object({ user: Type.Union([User, Type.Null()]) });
export type SessionResponse = Static<typeof SessionResponse>;
