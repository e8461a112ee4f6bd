/**
 * Standard Webhooks 1.0 signatures (standard-webhooks/standard-webhooks spec/standard-webhooks.md,
 * the notes' section 6): a secret is `whsec_` + base64 of random bytes (24 to 64; we make 32);
 * the signature of a message is `v1,` + base64(HMAC-SHA256(secret bytes, `${id}.${timestamp}.${body}`)),
 * one per live secret separated by spaces ("to allow for zero-downtime secret rotation"), newest
 * first. A receiver accepts the message when any one verifies. The headers are `webhook-id` (the
 * same across retries: receivers deduplicate on it), `webhook-timestamp` (Unix seconds of this
 * attempt; the reference verifier allows ±5 minutes) and `webhook-signature`.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of 32 random bytes (256 bits). */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key bytes of a `whsec_` secret (the spec signs with the decoded bytes, not the text). */
function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook signing secret starts with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length < 24 || key.length > 64) throw new Error('a webhook signing secret holds 24 to 64 bytes');
  return key;
}

/** `v1,<base64 HMAC-SHA256>` of one message under one secret. */
export function sign(secret: string, webhookId: string, timestampSeconds: number, rawBody: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${webhookId}.${timestampSeconds}.${rawBody}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` value: one signature per secret, in the order given (newest first), space-separated. */
export function signatureHeader(secrets: readonly string[], webhookId: string, timestampSeconds: number, rawBody: string): string {
  if (secrets.length === 0) throw new Error('no webhook signing secret');
  return secrets.map((s) => sign(s, webhookId, timestampSeconds, rawBody)).join(' ');
}

/** The three Standard Webhooks headers of one attempt. */
export function webhookHeaders(secrets: readonly string[], webhookId: string, timestampSeconds: number, rawBody: string): Record<string, string> {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(secrets, webhookId, timestampSeconds, rawBody),
  };
}
