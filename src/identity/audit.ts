/**
 * What the identity services need of the audit trail (platform/audit): every mutation records
 * an event with its actor in the same transaction as the change (issue 11 point 4).
 */
export type { AuditActor, AuditTx } from '../platform/audit/audit';
import type { AuditActor } from '../platform/audit/audit';
export { cliActor } from '../platform/audit/audit';

/**
 * The actor of a bearer-token request (directory and management APIs): its subject and client.
 * Typed by shape rather than as token-guards' TokenPrincipal: the guards' tenant lookup records
 * audit events, so this module cannot import them back (src/layering.test.ts).
 */
export function actorOf(principal: { subject: string; clientId: string | null }): AuditActor {
  return { subject: principal.subject, clientId: principal.clientId };
}

/**
 * The server itself, named explicitly by its internal work: initialisation (the control tenant
 * and its objects), a scheduled key activation, a federation's callbacks following its target's
 * issuers. Every service that audits takes its actor as a required argument (issue 22 point 4):
 * HTTP callers pass the token's (`actorOf`), the CLI its `os:<user>` (`cliActor`).
 */
export const SYSTEM_ACTOR: AuditActor = { subject: 'system', clientId: null };
