import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { startCheckpointer } from './checkpointer';
import { silentLogger } from '../logger';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

// Under WAL, committed pages reach the main database file only through a checkpoint, so its
// size tells whether one ran (reading the WAL state with a pragma would itself checkpoint).
const dbFileSize = () => statSync(h.db.file).size;
// Each tenant brings an RSA key row and its indexes: 40 of them pass the 1 MiB start threshold.
const writeSome = async () => {
  const filler = 'x'.repeat(30_000);
  for (let i = 0; i < 40; i++) {
    await h.services.store.tx((tx) => tx.tenants.insert({ id: `t${i}`, slug: `t${i}`, managedPath: `/t/t${i}${filler}`, createdAt: 'x', updatedAt: 'x' }));
  }
};
const settle = () => new Promise((r) => setTimeout(r, 600));

describe('checkpointer', () => {
  it('without it, and with checkpoints on commit off, nothing reaches the database file', async () => {
    h.db.write.$client.pragma('wal_autocheckpoint = 0');
    const before = dbFileSize();
    await writeSome();
    await settle();
    expect(dbFileSize()).toBe(before);
  });

  it('checkpoints the WAL from a worker thread, with checkpoints on commit off', async () => {
    const cp = startCheckpointer(h.db, silentLogger, 20);
    try {
      expect(h.db.write.$client.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      const before = dbFileSize();
      await writeSome();
      await settle();
      expect(dbFileSize()).toBeGreaterThan(before);
    } finally {
      await cp.stop();
    }
    expect(h.services.tenants.list(0, 100).total).toBe(41);
  });
});
