/**
 * A throwaway certificate authority and a localhost server certificate signed by it (openssl),
 * so the provider fakes speak TLS as APNs and FCM do and the client trusts them only through
 * `pushCaFile`, never by turning verification off.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestCa {
  dir: string;
  caFile: string;
  ca: Buffer;
  key: Buffer;
  cert: Buffer;
}

export function createTestCa(): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'engage-ca-'));
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=engage test CA');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(f('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  ssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('ext.cnf'));
  return { dir, caFile: f('ca.pem'), ca: readFileSync(f('ca.pem')), key: readFileSync(f('server.key')), cert: readFileSync(f('server.pem')) };
}
