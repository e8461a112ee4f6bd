import type { Context, Hono } from 'hono';
import type { Config } from '../../platform/config';
import { ApiError } from '../../platform/http/errors';
import { described, type RouteDoc } from '../../platform/http/openapi';
import { clientAddress, noContent, withHeaders } from '../../platform/http/request';
import { checker, type TSchema } from '../../platform/http/schema';
import type { IssuerEnv } from '../issuer';
import { toNativeError } from './errors';
import { readNativeForm, refuseBrowsers } from './form';
import {
  CodeResult, EmailRequestForm, EmailVerifyForm, InteractionCreated, InteractionForm, MfaForm, PasswordForm, ProofResult, RecoveryCompleteForm,
  RecoveryVerified, RegistrationCompleteForm, RegistrationVerified, SocialForm, Timers,
} from './schemas';
import type { NativeService } from './service';

const BASE = '/oauth2/native';

const check = {
  interaction: checker(InteractionForm),
  password: checker(PasswordForm),
  social: checker(SocialForm),
  emailRequest: checker(EmailRequestForm),
  emailVerify: checker(EmailVerifyForm),
  mfa: checker(MfaForm),
  registrationComplete: checker(RegistrationCompleteForm),
  recoveryComplete: checker(RecoveryCompleteForm),
};

const COMMON_ERRORS = {
  400: 'invalid_request, invalid_interaction',
  403: 'browser_request_forbidden, native_authentication_disabled',
  404: 'unknown_tenant',
};

function doc(summary: string, body: TSchema, responses: RouteDoc['responses'], errors: Record<number, string>): RouteDoc {
  const merged: Record<number, string> = { ...COMMON_ERRORS };
  for (const [k, v] of Object.entries(errors)) merged[Number(k)] = merged[Number(k)] ? `${merged[Number(k)]}, ${v}` : v;
  return { summary, tags: ['native'], body: { schema: body, type: 'form' }, responses, errors: merged };
}

/**
 * Failures with a code of the native table answer with the table's status (errors.ts). Operators
 * see throttling per tenant (as for the browser sign-in), never an address, password or code.
 */
const handle = (fn: (c: Context<IssuerEnv>) => Promise<Response>) => async (c: Context<IssuerEnv>) => {
  try {
    return await fn(c);
  } catch (e) {
    const mapped = toNativeError(e);
    if (mapped instanceof ApiError && mapped.status === 429) c.get('log')?.warn('native attempt throttled', { tenantId: c.get('tenant').tenant.id, route: c.req.routePath });
    throw mapped;
  }
};

const PROOF = { 200: { description: 'authorization code result, or mfa_required with a challenge token', schema: ProofResult } };
const TIMERS = { 202: { description: 'queued; the same answer whether or not a message goes out', schema: Timers } };

/**
 * The native authentication adapter (spec 02 "Native adapter"), under `{issuer}/oauth2/native`
 * in the api family: form-encoded requests, `{error}` failures with the native table's codes.
 */
export function mountNativeRoutes(app: Hono<IssuerEnv>, native: NativeService, config: Pick<Config, 'trustedProxies'>): void {
  app.use(`${BASE}/*`, withHeaders({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }), refuseBrowsers);
  const ip = (c: Context) => clientAddress(c, config.trustedProxies);

  app.post(`${BASE}/interactions`, described(
    doc('Start a native interaction with the authorization parameters', InteractionForm, { 201: { description: 'the interaction', schema: InteractionCreated } }, {
      400: 'invalid_client, invalid_scope, invalid_target', 409: 'browser_required',
    }),
    handle(async (c) => c.json({ interactionId: await native.openInteraction(c.get('tenant'), await readNativeForm(c, check.interaction)) }, 201)),
  ));

  app.post(`${BASE}/password`, described(
    doc('Password proof', PasswordForm, PROOF, { 401: 'invalid_credentials', 409: 'browser_required', 429: 'too_many_attempts (Retry-After)' }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.password);
      return c.json(await native.password(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, password: f.password, ip: ip(c) }));
    }),
  ));

  app.post(`${BASE}/social`, described(
    doc('Social ID token proof', SocialForm, PROOF, {
      401: 'invalid_credentials', 403: 'provider_unavailable, registration_closed', 409: 'account_link_required, email_verification_required, browser_required',
    }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.social);
      return c.json(await native.social(c.get('tenant'), { interactionId: f.interaction_id, provider: f.provider, idToken: f.id_token, nonce: f.nonce, audience: f.audience }));
    }),
  ));

  app.post(`${BASE}/email/request`, described(
    doc('Email a six-digit sign-in code', EmailRequestForm, TIMERS, { 429: 'too_many_attempts (resend wait)', 503: 'temporarily_unavailable' }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.emailRequest);
      return c.json(await native.emailRequest(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, ip: ip(c) }), 202);
    }),
  ));

  app.post(`${BASE}/email/verify`, described(
    doc('Email code proof', EmailVerifyForm, PROOF, { 401: 'invalid_code', 409: 'browser_required' }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.emailVerify);
      return c.json(await native.emailVerify(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, code: f.code }));
    }),
  ));

  app.post(`${BASE}/mfa`, described(
    doc('Second factor (totp or recovery code) of an mfa_required interaction', MfaForm, { 200: { description: 'authorization code result', schema: CodeResult } }, {
      401: 'invalid_code', 429: 'too_many_attempts (Retry-After)',
    }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.mfa);
      return c.json(await native.mfa(c.get('tenant'), { interactionId: f.interaction_id, challengeToken: f.challenge_token, method: f.method, code: f.code, ip: ip(c) }));
    }),
  ));

  app.post(`${BASE}/registration/request`, described(
    doc('Start a registration: a ten-minute emailed code', EmailRequestForm, TIMERS, { 403: 'registration_closed', 429: 'too_many_attempts (resend wait)', 503: 'temporarily_unavailable' }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.emailRequest);
      return c.json(await native.registrationRequest(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, ip: ip(c) }), 202);
    }),
  ));

  app.post(`${BASE}/registration/verify`, described(
    doc('Prove the registration address: a one-use, five-minute grant', EmailVerifyForm, { 200: { description: 'the registration grant', schema: RegistrationVerified } }, {
      401: 'invalid_code', 403: 'registration_closed',
    }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.emailVerify);
      return c.json(await native.registrationVerify(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, code: f.code }));
    }),
  ));

  app.post(`${BASE}/registration/complete`, described(
    doc('Create the account (active, email verified, not signed in)', RegistrationCompleteForm, { 201: { description: 'empty body' } }, {
      400: 'invalid_password', 401: 'invalid_grant', 403: 'registration_closed', 409: 'registration_conflict',
    }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.registrationComplete);
      await native.registrationComplete(c.get('tenant'), { interactionId: f.interaction_id, registrationGrant: f.registration_grant, password: f.password });
      return c.body(null, 201);
    }),
  ));

  app.post(`${BASE}/password/recovery/request`, described(
    doc('Start a password recovery: an emailed code (discloses nothing)', EmailRequestForm, TIMERS, { 429: 'too_many_attempts (resend wait)', 503: 'temporarily_unavailable' }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.emailRequest);
      return c.json(await native.recoveryRequest(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, ip: ip(c) }), 202);
    }),
  ));

  app.post(`${BASE}/password/recovery/verify`, described(
    doc('Prove the recovery address: a five-minute reset grant', EmailVerifyForm, { 200: { description: 'the reset grant', schema: RecoveryVerified } }, { 401: 'invalid_code' }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.emailVerify);
      return c.json(await native.recoveryVerify(c.get('tenant'), { interactionId: f.interaction_id, email: f.email, code: f.code }));
    }),
  ));

  app.post(`${BASE}/password/recovery/complete`, described(
    doc('Replace the password; the user’s sessions and refresh tokens end', RecoveryCompleteForm, { 204: { description: 'password replaced' } }, {
      400: 'invalid_new_password', 401: 'invalid_grant',
    }),
    handle(async (c) => {
      const f = await readNativeForm(c, check.recoveryComplete);
      await native.recoveryComplete(c.get('tenant'), { interactionId: f.interaction_id, resetGrant: f.reset_grant, newPassword: f.new_password });
      return noContent(c);
    }),
  ));
}
