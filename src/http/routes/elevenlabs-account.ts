import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.ts';
import { ElevenLabsSubscription, ElevenLabsUser } from '../../schemas/elevenlabs.ts';
import { requireAuth, requireScope } from '../plugins/auth.ts';
import { scopesOf, type Principal } from '../types.ts';

const TAG = 'ElevenLabs compatible';
/** No monthly character limit here; their shape needs a number, so the largest exact one. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * The account routes, limited as the API is, in this API's section of the docs: the subscription is read with the
 * `usage` scope; the user with any key (`scope` null), since clients call it to check a key.
 */
function accountRoute<Response>(summary: string, description: string, response: Response, scope: 'usage' | null) {
  return {
    preHandler: scope ? requireScope(scope) : requireAuth,
    config: { rateLimit: 'api' as const },
    schema: { summary, description, tags: [TAG], response: { 200: response } },
  };
}

/** This calendar month in UTC: its first day, today, and the start of the next, as their reset time. */
function thisMonth(now = new Date()): { since: string; until: string; nextResetUnix: number } {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return {
    since: first.toISOString().slice(0, 10),
    until: now.toISOString().slice(0, 10),
    nextResetUnix: Math.floor(next.getTime() / 1000),
  };
}

/**
 * ElevenLabs' account routes (`user.get()`, `user.subscription.get()` in their SDKs): the account's usage this
 * month in their shape, so clients that show remaining characters or check the key work unchanged.
 */
export async function elevenLabsAccountRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { usage, users, ownedVoices, apiKeys } = app.services;

  /**
   * The subscription in their shape. Without `withUsage` (a key without the usage scope) the figures of the account's
   * use (characters, voice slots) are withheld: their SDK requires numbers, so they read 0.
   */
  const subscription = async (userId: string, withUsage: boolean): Promise<ElevenLabsSubscription> => {
    const month = thisMonth();
    const [report, user, owned] = await Promise.all([
      withUsage ? usage.report(userId, month) : { days: [] },
      users.findById(userId),
      withUsage ? ownedVoices.listByOwner(userId) : [],
    ]);
    if (!user) throw new AppError('unauthorized');
    return {
      tier: user.plan,
      character_count: report.days.reduce((sum, d) => sum + d.characters, 0),
      character_limit: NO_LIMIT,
      max_character_limit_extension: null,
      max_credit_limit_extension: 0,
      can_extend_character_limit: false,
      allowed_to_extend_character_limit: false,
      next_character_count_reset_unix: month.nextResetUnix,
      voice_slots_used: owned.length,
      professional_voice_slots_used: 0,
      professional_voice_slots_used_in_workspace: 0,
      voice_limit: app.config.maxVoicesPerUser,
      max_voice_add_edits: null,
      voice_add_edit_counter: owned.length,
      professional_voice_limit: 0,
      can_extend_voice_limit: false,
      can_use_instant_voice_cloning: true,
      can_use_professional_voice_cloning: false,
      currency: 'usd',
      current_overage: { amount: '0', currency: 'usd' },
      status: 'active',
      billing_period: 'monthly_period',
      character_refresh_period: 'monthly_period',
      next_invoice: null,
      open_invoices: [],
      has_open_invoices: false,
    };
  };

  const keyPreview = async (principal: Principal): Promise<string | null> => {
    if (principal.via !== 'key') return null;
    return (await apiKeys.list(principal.userId)).find((k) => k.id === principal.keyId)?.masked_key ?? null;
  };

  r.get(
    '/v1/user',
    accountRoute(
      'The account (ElevenLabs shape)',
      'Your account and its usage this month, as their `user.get()` reads it; clients call it to check a key, so any ' +
        'valid key gets it. A key without the `usage` scope (e.g. Speech only) gets the usage figures (`character_count`, ' +
        '`voice_slots_used`, `voice_add_edit_counter`) as 0: withheld, not measured. There is no monthly character limit.',
      ElevenLabsUser,
      null,
    ),
    async (request) => {
      const principal = request.principal as Principal;
      const [sub, createdAt, preview] = await Promise.all([
        subscription(principal.userId, scopesOf(principal).includes('usage')),
        users.createdAt(principal.userId),
        keyPreview(principal),
      ]);
      return {
        user_id: principal.userId,
        workspace_id: principal.userId,
        subscription: sub,
        is_new_user: false,
        can_use_delayed_payment_methods: false,
        is_onboarding_completed: true,
        is_onboarding_checklist_completed: true,
        first_name: null,
        is_api_key_hashed: true,
        xi_api_key_preview: preview,
        created_at: Math.floor(Date.parse(createdAt ?? new Date().toISOString()) / 1000),
        seat_type: 'workspace_admin' as const,
      };
    },
  );

  r.get(
    '/v1/user/subscription',
    accountRoute(
      'The subscription (ElevenLabs shape)',
      'Characters used this calendar month (UTC) and your voice slots, as their `user.subscription.get()` reads them.',
      ElevenLabsSubscription,
      'usage',
    ),
    async (request) => subscription((request.principal as Principal).userId, true),
  );
}
