/**
 * vitest setupFile of the in-process (unit) project: RSA-2048 generation (jose's generateKeyPair,
 * which every tenant's signing key costs: ~40 ms of CPU here, and every harness makes a control
 * tenant) draws from a ring of real keys made once per worker. The first RING keys are generated
 * as usual, later ones are those again in turn: any RING consecutive keys are distinct, so a
 * rotation still gets a new key, and no test database ever holds two tenants with the same one
 * unless it makes more than RING keys. Key ids are not affected (keys/service.ts draws them
 * apart). The executable's tests (e2e project) generate every key.
 */
import { vi } from 'vitest';

const RING = 24;

vi.mock('jose', async (importOriginal) => {
  const jose = await importOriginal<typeof import('jose')>();
  type Pair = Awaited<ReturnType<typeof jose.generateKeyPair>>;
  const ring: Pair[] = [];
  let next = 0;
  const generateKeyPair: typeof jose.generateKeyPair = async (alg, options) => {
    if (alg !== 'RS256' || options?.modulusLength !== 2048 || options.extractable !== true) return jose.generateKeyPair(alg, options);
    if (ring.length < RING) {
      const pair = await jose.generateKeyPair(alg, options);
      ring.push(pair);
      return pair;
    }
    return ring[next++ % RING]!;
  };
  return { ...jose, generateKeyPair };
});
