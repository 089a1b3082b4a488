import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { LoginBody, Message, SessionResponse, VerifyBody, VerifyResponse } from '../../schemas/auth.ts';
import { sha256Hex } from '../../accounts/secrets.ts';
import { normalizeEmail, SignInMailError } from '../../accounts/sign-in.ts';
import { checkOrigin, sessionCookieName } from '../plugins/auth.ts';
import { enforce } from '../plugins/rate-limit.ts';
import { ownAddressBase } from '../origin-policy.ts';

const HOUR = 3_600_000;

/** Without PUBLIC_URL, the link leads back to the address the person asked from (see origin-policy.ts). */
function linkBase(app: FastifyInstance, request: FastifyRequest): string | null {
  const { socket } = request.raw;
  const scheme = request.protocol === 'https' ? 'https:' : 'http:';
  return ownAddressBase(app.config, { host: request.host, scheme, localAddress: socket.localAddress, localPort: socket.localPort });
}

export async function authRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { magicLinks, users, sessions, signIn, operators } = app.services;
  const withRole = async <U extends { id: string; email: string }>(user: U) => ({ ...user, operator: await operators.isOperator(user) });

  /**
   * Starting a sign-in (asking for a link, using one): limited per address as logins are, and from our own pages
   * only when a browser sends an Origin (a page on another site must not make our users request links, nor sign
   * them in to an account of its choosing). Clients outside a browser send none.
   */
  const signInStep = {
    config: { rateLimit: 'login' as const },
    preHandler: async (request: FastifyRequest) => {
      if (request.headers.origin !== undefined) checkOrigin(app, request);
    },
  };

  const sessionCookie = (reply: FastifyReply, value: string, maxAge: number) =>
    reply.setCookie(sessionCookieName(app.config.secureCookies), value, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: app.config.secureCookies,
      maxAge,
    });

  r.post(
    '/api/auth/login',
    {
      ...signInStep,
      schema: {
        summary: 'Send a magic sign-in link',
        description: 'Mails a one-time sign-in link. The answer is the same for every address, known or not.',
        body: LoginBody,
        response: { 200: Message },
      },
    },
    async (request, reply) => {
      const email = normalizeEmail(request.body.email);
      if (!email) throw new AppError('validation', 'email must be a valid e-mail address');
      await enforce(app, reply, `login:addr:${sha256Hex(email)}`, app.config.loginAddressLimitPerHour, HOUR, 'login-address');
      try {
        await signIn.requestSignIn(email, linkBase(app, request));
      } catch (err) {
        if (!(err instanceof SignInMailError)) throw err;
        request.log.error({ err: { message: err.reason } }, 'sending the sign-in mail failed');
        throw new AppError('mail_unavailable');
      }
      const minutes = signIn.linkMinutes;
      // The same answer for every address, known or not.
      return { message: `If ${email} can receive mail, a sign-in link is on its way. It works once and expires in ${minutes} minutes.` };
    },
  );

  r.post(
    '/api/auth/verify',
    {
      ...signInStep,
      schema: {
        summary: 'Verify a magic link',
        description: 'Consumes the token from the e-mailed link and starts a session (httpOnly cookie `vox_session`).',
        body: VerifyBody,
        response: { 200: VerifyResponse },
      },
    },
    async (request, reply) => {
      const email = await magicLinks.consume(request.body.token);
      if (!email) throw new AppError((await magicLinks.refusal(request.body.token)) === 'expired' ? 'link_expired' : 'invalid_token');
      const user = await users.findOrCreate(email);
      const sessionId = await sessions.create(user.id);
      sessionCookie(reply, sessionId, sessions.maxAgeSeconds);
      return { user: await withRole(user) };
    },
  );

  r.get(
    '/api/auth/session',
    {
      schema: {
        summary: 'Get the session',
        description: 'The signed-in user, or `{"user": null}`.',
        response: { 200: SessionResponse },
      },
    },
    async (request) => {
      const p = request.principal;
      const user = p ? await users.findById(p.userId) : null;
      return { user: user ? await withRole(user) : null };
    },
  );

  r.post(
    '/api/auth/logout',
    {
      schema: {
        summary: 'Log out',
        description: 'Ends the session and clears its cookie. Needs the session (and an Origin equal to PUBLIC_URL’s).',
        security: [{ session: [] }],
        response: { 200: Message },
      },
    },
    async (request, reply) => {
      const p = request.principal;
      if (!p || p.via !== 'session') throw new AppError('unauthorized', 'Not signed in');
      checkOrigin(app, request);
      await sessions.destroy(p.sessionIdHash);
      reply.clearCookie(sessionCookieName(app.config.secureCookies), {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: app.config.secureCookies,
      });
      return { message: 'Signed out' };
    },
  );
}
