import { sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';

/**
 * Compact JWS with RS256 on node:crypto directly: the header of each (kid, typ) is encoded once,
 * signing uses the cached private KeyObject and, by default, libuv's thread pool
 * (`crypto.sign` with a callback), so RSA work runs beside the event loop on a second core.
 */

export type JwtTyp = 'JWT' | 'at+jwt';

const headers = new Map<string, string>();

function encodedHeader(kid: string, typ: JwtTyp): string {
  const k = typ + ' ' + kid;
  let h = headers.get(k);
  if (!h) {
    h = Buffer.from(JSON.stringify({ alg: 'RS256', typ, kid })).toString('base64url');
    headers.set(k, h);
  }
  return h;
}

/** Off-thread by default; ENGAGE_SIGN_INLINE=1 signs on the event loop (for measurements). */
const INLINE = process.env.ENGAGE_SIGN_INLINE === '1';

export function signJwt(key: { kid: string; key: KeyObject }, typ: JwtTyp, payload: object): Promise<string> {
  const input = encodedHeader(key.kid, typ) + '.' + Buffer.from(JSON.stringify(payload)).toString('base64url');
  const data = Buffer.from(input);
  if (INLINE) return Promise.resolve(input + '.' + cryptoSign('sha256', data, key.key).toString('base64url'));
  return new Promise((resolve, reject) => {
    cryptoSign('sha256', data, key.key, (err, sig) => (err ? reject(err) : resolve(input + '.' + sig.toString('base64url'))));
  });
}

export interface DecodedJws {
  kid: string;
  typ: string | undefined;
  /** The signing input (header.payload) and signature, for verification. */
  input: string;
  signature: string;
  payload: string;
}

const B64URL = /^[A-Za-z0-9_-]+$/;
const parsedHeaders = new Map<string, { alg?: unknown; typ?: unknown; kid?: unknown } | null>();

function parseHeader(h: string): { alg?: unknown; typ?: unknown; kid?: unknown } | null {
  let v = parsedHeaders.get(h);
  if (v === undefined) {
    try {
      const parsed = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as unknown;
      v = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { alg?: unknown }) : null;
    } catch {
      v = null;
    }
    // Only our own few headers recur; never let arbitrary input grow the cache without bound.
    if (parsedHeaders.size < 1000) parsedHeaders.set(h, v);
  }
  return v;
}

/** Splits a compact RS256 JWS and checks the header (alg first, RFC 8725 §3.1). */
export function decodeJws(token: string): DecodedJws | undefined {
  if (typeof token !== 'string' || token.length > 8192) return undefined;
  const a = token.indexOf('.');
  const b = token.indexOf('.', a + 1);
  if (a <= 0 || b <= a + 1 || b === token.length - 1 || token.indexOf('.', b + 1) !== -1) return undefined;
  const h = token.slice(0, a);
  const p = token.slice(a + 1, b);
  const s = token.slice(b + 1);
  if (!B64URL.test(h) || !B64URL.test(p) || !B64URL.test(s)) return undefined;
  const header = parseHeader(h);
  if (!header || header.alg !== 'RS256' || typeof header.kid !== 'string') return undefined;
  return { kid: header.kid, typ: typeof header.typ === 'string' ? header.typ : undefined, input: token.slice(0, b), signature: s, payload: p };
}

export function verifyJws(jws: DecodedJws, key: KeyObject): Record<string, unknown> | undefined {
  if (!cryptoVerify('sha256', Buffer.from(jws.input), key, Buffer.from(jws.signature, 'base64url'))) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(jws.payload, 'base64url').toString('utf8')) as unknown;
    return claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
