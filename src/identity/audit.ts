/**
 * What the identity services need of the audit trail (platform/audit): every mutation records
 * an event with its actor in the same transaction as the change (issue 11 point 4).
 */
import type { AuditActor, AuditEventInput } from '../platform/audit/audit';

export type { AuditActor } from '../platform/audit/audit';
export { cliActor } from '../platform/audit/audit';

/**
 * The actor of a bearer-token request (directory and management APIs): its subject and client.
 * Typed by shape rather than as token-guards' TokenPrincipal: the guards' tenant lookup records
 * audit events, so this module cannot import them back (src/layering.test.ts).
 */
export function actorOf(principal: { subject: string; clientId: string | null }): AuditActor {
  return { subject: principal.subject, clientId: principal.clientId };
}

/** The stores a transaction that records audit events carries (the `audit` store of src/stores.ts). */
export interface AuditTx {
  audit: { record(actor: AuditActor, event: AuditEventInput): Promise<unknown> };
}

/**
 * The server itself: initialisation (the control tenant) and callers that name no actor.
 * Services take the actor as their last argument and default to this one, so code written
 * before the audit trail (tests, fixtures) keeps compiling; every HTTP and CLI caller passes
 * the real one (docs/decisions.md "Management API").
 */
export const SYSTEM_ACTOR: AuditActor = { subject: 'system', clientId: null };
