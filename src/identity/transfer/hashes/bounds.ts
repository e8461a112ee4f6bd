/**
 * Bounds on the cost parameters an imported hash may carry (issue 21 point 1; docs/decisions.md).
 * An import once carried `$2b$31$…` (2^31 bcrypt rounds: never answered), scrypt with p near
 * 10^10 and scrypt asking for 128 GiB (500, malloc failure): one wrong password held a thread
 * for hours. Every family is bounded at import (the record fails with hash_cost_out_of_bounds)
 * and again before verification (a stored hash beyond them is refused without running it).
 *
 * The bounds admit what the sources write (Auth0 bcrypt 10; Firebase scrypt rounds ≤ 8 and
 * mem_cost ≤ 14; Keycloak PBKDF2 27,500–210,000 and argon2 m=7 MiB t=5; Django PBKDF2-SHA256
 * 1,000,000 in 5.2 and 1,200,000 in 6.0; Kratos bcrypt 12, argon2 128 MiB with p = 2 × CPUs,
 * scrypt N=32768 r=8; passlib scrypt ln=16 r=8; RFC 9106's m=64 MiB t=3 p=4) and stop each family
 * at about one to two seconds of one core and 256 MiB of memory a verification.
 */
export const HASH_COST_BOUNDS = {
  /** bcrypt: 2^cost rounds (cost 10 ≈ 0.1 s here; 14 ≈ 1.5 s, on the event loop, yielding). */
  bcrypt: { minCost: 4, maxCost: 14 },
  /** scrypt and Firebase's scrypt: memory 128·N·r bytes, work N·r·p (one 256 MiB pass at most). */
  scrypt: { maxMemoryBytes: 256 * 2 ** 20, maxParallelism: 16, maxWork: 2 ** 21 },
  /** argon2 i/d/id: m KiB, t passes, p lanes; work m·t (four passes over 256 MiB at most). */
  argon2: { maxMemoryKiB: 262_144, maxPasses: 64, maxLanes: 128, maxWorkKiB: 1_048_576 },
  /** PBKDF2 (Kratos, passlib, Django): iterations, times the blocks of the derived key. */
  pbkdf2: { maxIterations: 2_000_000, maxBlockIterations: 2_000_000 },
  /** Any derived key or digest. */
  maxDigestBytes: 128,
} as const;

const DIGEST_BYTES: Record<string, number> = { sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64, 'sha3-224': 28, 'sha3-384': 48 };

const B = HASH_COST_BOUNDS;

export function bcryptProblem(cost: number): string | undefined {
  if (cost < B.bcrypt.minCost || cost > B.bcrypt.maxCost) return `bcrypt cost ${cost} is outside ${B.bcrypt.minCost}..${B.bcrypt.maxCost}`;
  return undefined;
}

export function scryptProblem(n: number, r: number, p: number, length: number): string | undefined {
  if (r < 1 || p < 1) return `scrypt r=${r}, p=${p}: both must be at least 1`;
  if (p > B.scrypt.maxParallelism) return `scrypt p=${p} is above ${B.scrypt.maxParallelism}`;
  if (128 * n * r > B.scrypt.maxMemoryBytes) return `scrypt N=${n}, r=${r} needs ${(128 * n * r) / 2 ** 20} MiB, above ${B.scrypt.maxMemoryBytes / 2 ** 20} MiB`;
  if (n * r * p > B.scrypt.maxWork) return `scrypt N·r·p = ${n * r * p} is above 2^${Math.log2(B.scrypt.maxWork)}`;
  if (length > B.maxDigestBytes) return `scrypt key of ${length} bytes is above ${B.maxDigestBytes}`;
  return undefined;
}

export function argon2Problem(m: number, t: number, p: number, length: number): string | undefined {
  const a = B.argon2;
  if (t < 1 || p < 1 || m < 8 * p) return `argon2 m=${m}, t=${t}, p=${p}: t and p must be at least 1 and m at least 8·p (RFC 9106 §3.1)`;
  if (m > a.maxMemoryKiB) return `argon2 m=${m} KiB is above ${a.maxMemoryKiB} KiB`;
  if (t > a.maxPasses) return `argon2 t=${t} is above ${a.maxPasses}`;
  if (p > a.maxLanes) return `argon2 p=${p} is above ${a.maxLanes}`;
  if (m * t > a.maxWorkKiB) return `argon2 m·t = ${m * t} KiB is above ${a.maxWorkKiB} KiB`;
  if (length > B.maxDigestBytes) return `argon2 hash of ${length} bytes is above ${B.maxDigestBytes}`;
  return undefined;
}

export function pbkdf2Problem(digest: string, iterations: number, length: number): string | undefined {
  if (iterations < 1) return 'PBKDF2 iterations must be at least 1';
  if (iterations > B.pbkdf2.maxIterations) return `PBKDF2 iterations ${iterations} is above ${B.pbkdf2.maxIterations}`;
  if (length > B.maxDigestBytes) return `PBKDF2 key of ${length} bytes is above ${B.maxDigestBytes}`;
  // RFC 8018 §5.2: each block of the derived key costs all the iterations again.
  const blocks = Math.ceil(length / DIGEST_BYTES[digest]);
  if (iterations * blocks > B.pbkdf2.maxBlockIterations) return `PBKDF2 iterations × blocks = ${iterations} × ${blocks} is above ${B.pbkdf2.maxBlockIterations}`;
  return undefined;
}
