import type { Context, Hono } from 'hono';
import type { Config } from '../../platform/config';
import { ApiError } from '../../platform/http/errors';
import type { RouteDoc } from '../../platform/http/openapi';
import { clientAddress, noContent, withHeaders } from '../../platform/http/request';
import { declaredRoutes, type Input } from '../../platform/http/route';
import type { TSchema } from '../../platform/http/schema';
import type { IssuerEnv } from '../issuer';
import { toNativeError } from './errors';
import { nativeFormRules, refuseBrowsers } from './form';
import {
  CodeResult, EmailRequestForm, EmailVerifyForm, InteractionCreated, InteractionForm, MfaForm, PasswordForm, ProofResult, RecoveryCompleteForm,
  RecoveryVerified, RegistrationCompleteForm, RegistrationVerified, SocialForm, Timers,
} from './schemas';
import type { NativeService } from './service';

const BASE = '/oauth2/native';

/** Route declarations of the native adapter: the form checked by the documented schema before the handler. */
const route = declaredRoutes<IssuerEnv>(nativeFormRules);

const COMMON_ERRORS = {
  400: 'invalid_request, invalid_interaction',
  403: 'browser_request_forbidden, native_authentication_disabled',
  404: 'unknown_tenant',
};

function doc<const B extends TSchema>(summary: string, body: B, responses: RouteDoc['responses'], errors: Record<number, string>) {
  const merged: Record<number, string> = { ...COMMON_ERRORS };
  for (const [k, v] of Object.entries(errors)) merged[Number(k)] = merged[Number(k)] ? `${merged[Number(k)]}, ${v}` : v;
  return { summary, tags: ['native'] as string[], body: { schema: body, type: 'form' as const }, responses, errors: merged };
}

/**
 * Failures with a code of the native table answer with the table's status (errors.ts). Operators
 * see throttling per tenant (as for the browser sign-in), never an address, password or code.
 */
const handle = <D extends RouteDoc>(fn: (c: Context<IssuerEnv>, input: Input<D>) => Promise<Response>) => async (c: Context<IssuerEnv>, input: Input<D>) => {
  try {
    return await fn(c, input);
  } catch (e) {
    const mapped = toNativeError(e);
    if (mapped instanceof ApiError && mapped.status === 429) c.get('log')?.warn('native attempt throttled', { tenantId: c.get('tenant').tenant.id, route: c.req.routePath });
    throw mapped;
  }
};

const PROOF = { 200: { description: 'authorization code result, or mfa_required with a challenge token', schema: ProofResult } };
const TIMERS = { 202: { description: 'queued; the same answer whether or not a message goes out', schema: Timers } };
/** A code check's 429: the address's budget across its challenges (challenges.ts `verify`). */
const CODE_CHECKS = 'too_many_attempts (the address’s code checks; Retry-After)';

/**
 * The native authentication adapter (spec 02 "Native adapter"), under `{issuer}/oauth2/native`
 * in the api family: form-encoded requests, `{error}` failures with the native table's codes.
 */
export function mountNativeRoutes(app: Hono<IssuerEnv>, native: NativeService, config: Pick<Config, 'trustedProxies'>): void {
  app.use(`${BASE}/*`, withHeaders({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }), refuseBrowsers);
  const ip = (c: Context) => clientAddress(c, config.trustedProxies);

  app.post(`${BASE}/interactions`, route(
    doc('Start a native interaction with the authorization parameters', InteractionForm, { 201: { description: 'the interaction', schema: InteractionCreated } }, {
      400: 'invalid_client, invalid_scope, invalid_target', 409: 'browser_required',
    }),
    handle(async (c, { body }) => c.json({ interactionId: await native.openInteraction(c.get('tenant'), body) }, 201)),
  ));

  app.post(`${BASE}/password`, route(
    doc('Password proof', PasswordForm, PROOF, { 401: 'invalid_credentials', 409: 'browser_required', 429: 'too_many_attempts (Retry-After)' }),
    handle(async (c, { body: f }) => {
      return c.json(await native.password(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, password: f.password, ip: ip(c) }));
    }),
  ));

  app.post(`${BASE}/social`, route(
    doc('Social ID token proof', SocialForm, PROOF, {
      401: 'invalid_credentials', 403: 'provider_unavailable, registration_closed', 409: 'account_link_required, email_verification_required, browser_required',
    }),
    handle(async (c, { body: f }) => {
      return c.json(await native.social(c.get('tenant'), { interactionId: f.interaction_id, provider: f.provider, idToken: f.id_token, nonce: f.nonce, audience: f.audience }));
    }),
  ));

  app.post(`${BASE}/email/request`, route(
    doc('Email a six-digit sign-in code', EmailRequestForm, TIMERS, { 429: 'too_many_attempts (resend wait)', 503: 'temporarily_unavailable' }),
    handle(async (c, { body: f }) => {
      return c.json(await native.emailRequest(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, ip: ip(c) }), 202);
    }),
  ));

  app.post(`${BASE}/email/verify`, route(
    doc('Email code proof', EmailVerifyForm, PROOF, { 401: 'invalid_code', 409: 'browser_required', 429: CODE_CHECKS }),
    handle(async (c, { body: f }) => {
      return c.json(await native.emailVerify(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, code: f.code }));
    }),
  ));

  app.post(`${BASE}/mfa`, route(
    doc('Second factor (totp or recovery code) of an mfa_required interaction', MfaForm, { 200: { description: 'authorization code result', schema: CodeResult } }, {
      401: 'invalid_code', 429: 'too_many_attempts (Retry-After)',
    }),
    handle(async (c, { body: f }) => {
      return c.json(await native.mfa(c.get('tenant'), { interactionId: f.interaction_id, challengeToken: f.challenge_token, method: f.method, code: f.code, ip: ip(c) }));
    }),
  ));

  app.post(`${BASE}/registration/request`, route(
    doc('Start a registration: a ten-minute emailed code', EmailRequestForm, TIMERS, { 403: 'registration_closed', 429: 'too_many_attempts (resend wait)', 503: 'temporarily_unavailable' }),
    handle(async (c, { body: f }) => {
      return c.json(await native.registrationRequest(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, ip: ip(c) }), 202);
    }),
  ));

  app.post(`${BASE}/registration/verify`, route(
    doc('Prove the registration address: a one-use, five-minute grant', EmailVerifyForm, { 200: { description: 'the registration grant', schema: RegistrationVerified } }, {
      401: 'invalid_code', 403: 'registration_closed', 429: CODE_CHECKS,
    }),
    handle(async (c, { body: f }) => {
      return c.json(await native.registrationVerify(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, code: f.code }));
    }),
  ));

  app.post(`${BASE}/registration/complete`, route(
    doc('Create the account (active, email verified, not signed in)', RegistrationCompleteForm, { 201: { description: 'empty body' } }, {
      400: 'invalid_password', 401: 'invalid_grant', 403: 'registration_closed', 409: 'registration_conflict',
    }),
    handle(async (c, { body: f }) => {
      await native.registrationComplete(c.get('tenant'), { interactionId: f.interaction_id, registrationGrant: f.registration_grant, password: f.password });
      return c.body(null, 201);
    }),
  ));

  app.post(`${BASE}/password/recovery/request`, route(
    doc('Start a password recovery: an emailed code (discloses nothing)', EmailRequestForm, TIMERS, { 429: 'too_many_attempts (resend wait)', 503: 'temporarily_unavailable' }),
    handle(async (c, { body: f }) => {
      return c.json(await native.recoveryRequest(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, ip: ip(c) }), 202);
    }),
  ));

  app.post(`${BASE}/password/recovery/verify`, route(
    doc('Prove the recovery address: a five-minute reset grant', EmailVerifyForm, { 200: { description: 'the reset grant', schema: RecoveryVerified } }, {
      401: 'invalid_code', 429: CODE_CHECKS,
    }),
    handle(async (c, { body: f }) => {
      return c.json(await native.recoveryVerify(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, code: f.code }));
    }),
  ));

  app.post(`${BASE}/password/recovery/complete`, route(
    doc('Replace the password; the user’s sessions and refresh tokens end', RecoveryCompleteForm, { 204: { description: 'password replaced' } }, {
      400: 'invalid_new_password', 401: 'invalid_grant',
    }),
    handle(async (c, { body: f }) => {
      await native.recoveryComplete(c.get('tenant'), { interactionId: f.interaction_id, resetGrant: f.reset_grant, newPassword: f.new_password });
      return noContent(c);
    }),
  ));
}
