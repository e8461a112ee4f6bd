import { digest, newSecret, safeEqual } from '../../platform/crypto';
import type { Client } from '../clients/service';
import type { ResolvedTenant } from '../tenants/service';
import { NATIVE_LIMITS, type CodeResult, type NativeDeps, type NativeRequest, type ProofResult } from './context';
import { nativeFailure } from './errors';
import type { InteractionRow, InteractionState } from './store';

/** A loaded interaction: its row, its request and its (still native-enabled) client. */
export interface LiveInteraction {
  row: InteractionRow;
  digest: string;
  request: NativeRequest;
  client: Client;
}

/** Validation failures of the authorization endpoint, as the native table names them. */
const NATIVE_CODE: Record<string, 'invalid_request' | 'invalid_client' | 'invalid_scope' | 'invalid_target'> = {
  invalid_request: 'invalid_request',
  invalid_client: 'invalid_client',
  unsupported_response_type: 'invalid_request',
  invalid_scope: 'invalid_scope',
  invalid_target: 'invalid_target',
};

const gone = (detail: string) => nativeFailure('invalid_interaction', detail);
const claimedElsewhere = (it: LiveInteraction) => gone(`the interaction belongs to the ${it.row.flow ?? 'another'} flow`);

type ProofFlow = 'password' | 'social' | 'email';
/** Work of the proof's own (its throttle's success) done in the transaction that ends the proof. */
/** Work that joins the proof's transaction (a nested `store.tx`: the throttle's settlement). */
export type Settle = () => Promise<void>;

/**
 * Interactions (spec 02 "Native flow"): POST /interactions validates the authorization
 * parameters exactly as the authorization endpoint does and keeps them; the proofs then run on
 * it, and the one that succeeds ends it and issues the code in one transaction.
 */
export function createInteractions(deps: NativeDeps) {
  const { store, clock, clients, oauth, mfa } = deps;
  const now = () => clock.nowSeconds();

  /** The client as native routes see it: unknown or disabled is invalid_client; not enabled is 403. */
  async function nativeClient(tenantId: string, clientId: string): Promise<Client> {
    const client = clients.cached(tenantId, clientId) ?? (await clients.find(tenantId, clientId));
    if (!client || client.status !== 'ACTIVE') throw nativeFailure('invalid_client', `unknown client ${clientId}`);
    if (!client.nativeAuthenticationEnabled) throw nativeFailure('native_authentication_disabled');
    return client;
  }

  /**
   * Issues the code and ends the interaction, atomically: of two racing proofs only one gets a
   * code. `settle` runs in the same transaction whatever the outcome, after the interaction's row
   * (the lock order of every proof: interaction, then throttle counters).
   */
  async function complete(tenant: ResolvedTenant, it: LiveInteraction, userId: string, from: InteractionState, replacementRecoveryCode: string | null, settle?: Settle): Promise<CodeResult> {
    const tenantId = tenant.tenant.id;
    const r = it.request;
    const code = await store.tx(async (tx) => {
      const finished = await tx.native.finish(tenantId, it.digest, from, now());
      await settle?.();
      if (!finished) return undefined;
      return oauth.issueAuthorizationCode({
        tenantId, clientId: it.client.clientId, userId, redirectUri: r.redirectUri, codeChallenge: r.codeChallenge,
        scope: r.scope, resource: r.resource, nonce: r.nonce, authTime: now(), bindingCodeDigest: r.bindingCodeDigest ?? null,
      });
    });
    if (code === undefined) throw gone('the interaction was used by another request');
    return { code, state: r.state, issuer: tenant.issuer, redirectUri: r.redirectUri, replacementRecoveryCode };
  }

  /** Registration done, or a page needed: the interaction cannot yield a code any more. */
  async function end(tenant: ResolvedTenant, it: LiveInteraction, settle?: Settle): Promise<void> {
    await store.tx(async (tx) => {
      await tx.native.end(tenant.tenant.id, it.digest);
      await settle?.();
    });
  }

  return {
    nativeClient,
    complete,
    end,

    /** POST /interactions: 201 interactionId, or the error the native table names. */
    async open(tenant: ResolvedTenant, form: Record<string, string>): Promise<string> {
      const tenantId = tenant.tenant.id;
      const client = await nativeClient(tenantId, form.client_id);
      const v = await oauth.validateAuthorizationRequest(tenant, form);
      if (!v.ok) throw nativeFailure(NATIVE_CODE[v.error] ?? 'invalid_request', v.description);
      const req = v.request;
      // Pages the native adapter cannot show (docs/decisions.md "Native authentication").
      if (req.prompt.includes('none') || req.prompt.includes('select_account')) throw nativeFailure('browser_required', `prompt=${req.prompt.join(' ')} needs the browser`);
      if (req.prompt.includes('consent') && client.consentPolicy === 'EXPLICIT') throw nativeFailure('browser_required', 'prompt=consent needs the consent page');
      const request: NativeRequest = { redirectUri: req.redirectUri, scope: req.scope, state: req.state!, nonce: req.nonce, codeChallenge: req.codeChallenge, resource: req.resource };
      if (req.bindingCode !== null) request.bindingCodeDigest = digest(req.bindingCode);
      const id = newSecret();
      const t = now();
      await store.tx((tx) =>
        tx.native.insertInteraction({ idDigest: digest(id), tenantId, clientId: client.clientId, request: JSON.stringify(request), createdAt: t, expiresAt: t + NATIVE_LIMITS.interactionSeconds }),
      );
      return id;
    },

    /**
     * The interaction, if it is this tenant's, unexpired and in one of `states`; its client
     * must still be active and native-enabled.
     */
    async load(tenant: ResolvedTenant, interactionId: string, states: InteractionState[] = ['OPEN']): Promise<LiveInteraction> {
      const tenantId = tenant.tenant.id;
      const d = digest(interactionId);
      const row = await store.native.findInteraction(tenantId, d);
      if (!row || row.expiresAt <= now() || !states.includes(row.state)) throw gone('unknown, expired or finished interaction');
      const client = await clients.find(tenantId, row.clientId);
      if (!client || client.status !== 'ACTIVE') throw gone('the client is no longer active');
      if (!client.nativeAuthenticationEnabled) throw nativeFailure('native_authentication_disabled');
      return { row, digest: d, request: JSON.parse(row.request) as NativeRequest, client };
    },

    /**
     * Binds the interaction to one proof flow (spec 02: "passed as interaction_id to exactly one
     * proof flow"); inside another transaction it joins it (the password proof admits its attempt in the same one).
     */
    async claim(tenant: ResolvedTenant, it: LiveInteraction, flow: ProofFlow): Promise<void> {
      // Already this flow's: nothing to write (the move to DONE re-checks the state anyway).
      if (it.row.flow === flow) return;
      if (!(await store.tx((tx) => tx.native.claimFlow(tenant.tenant.id, it.digest, flow, now())))) throw claimedElsewhere(it);
    },

    claimedElsewhere,

    /**
     * After a correct primary proof: a consent the user never gave needs the browser; a second
     * factor answers mfa_required; otherwise the code.
     */
    async afterPrimaryProof(tenant: ResolvedTenant, it: LiveInteraction, userId: string, settle?: Settle): Promise<ProofResult> {
      const tenantId = tenant.tenant.id;
      const r = it.request;
      if (!(await oauth.hasConsent(tenantId, userId, it.client.clientId, r.scope, r.resource))) {
        await end(tenant, it, settle);
        throw nativeFailure('browser_required', 'the client needs the user’s consent, given on the consent page');
      }
      if (await mfa.hasSecondFactor(tenantId, userId)) {
        const challengeToken = newSecret();
        const t = now();
        const started = await store.tx(async (tx) => {
          const ok = await tx.native.startMfa(tenantId, it.digest, userId, t, digest(challengeToken), t);
          await settle?.();
          return ok;
        });
        if (!started) throw gone('the interaction was used by another request');
        return { status: 'mfa_required', challengeToken };
      }
      return complete(tenant, it, userId, 'OPEN', null, settle);
    },

    /** The MFA-pending interaction's user, when the challenge token is the one it was given. */
    checkChallenge(it: LiveInteraction, challengeToken: string): string {
      if (it.row.state !== 'MFA' || !it.row.userId || !it.row.challengeDigest || !safeEqual(it.row.challengeDigest, digest(challengeToken))) {
        throw gone('no second factor is pending for this challenge token');
      }
      return it.row.userId;
    },
  };
}

export type Interactions = ReturnType<typeof createInteractions>;
