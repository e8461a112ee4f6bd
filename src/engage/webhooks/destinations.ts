/**
 * Where a webhook may go (SSRF, the notes' section 6 and OWASP's SSRF Prevention Cheat Sheet):
 * never to a private, loopback, link-local, shared (CGNAT), metadata, multicast, reserved or
 * unspecified address, IPv4 or IPv6 (IPv4-mapped, NAT64 and 6to4 addresses judged by the IPv4
 * address they carry), unless the operator allow-lists it (`webhookAllowPrivate`,
 * ENGAGE_WEBHOOK_ALLOW_PRIVATE: CIDR ranges or `*`). The check is made on the address the
 * connection is opened to: the agents' `lookup` (delivery.ts) resolves the name, keeps only the
 * allowed addresses and hands the socket those, so a name that resolves to a public address when
 * checked and a private one when connecting (DNS rebinding) cannot pass; a literal address in the
 * URL is checked before the request, as the socket does no lookup for it.
 */
import type dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { inCidr, parseCidr, parseCidrList, parseIp, type Cidr, type IpAddress } from '../../platform/cidr';

const range = (text: string): Cidr => parseCidr(text)!;

/** Refused unless allow-listed (IANA special-purpose registries, RFC 6890 and its updates). */
const REFUSED_RANGES = [
  '0.0.0.0/8', // "this network", 0.0.0.0 unspecified
  '10.0.0.0/8', // private (RFC 1918)
  '100.64.0.0/10', // shared address space, CGNAT (RFC 6598); Alibaba's metadata 100.100.100.200
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local; the cloud metadata service 169.254.169.254
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, 255.255.255.255 broadcast
  '::/96', // unspecified ::, loopback ::1, IPv4-compatible (deprecated)
  '64:ff9b:1::/48', // local-use NAT64 (RFC 8215)
  '100::/64', // discard
  '2001::/32', // Teredo (carries an obfuscated IPv4 address)
  '2001:db8::/32', // documentation
  'fc00::/7', // unique local (AWS's IPv6 metadata fd00:ec2::254)
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated)
  'ff00::/8', // multicast
];

/** IPv6 ranges whose addresses carry an IPv4 address, judged by it: NAT64 (RFC 6052) and 6to4 (RFC 3056). */
const CARRIERS: readonly { range: string; v4: (value: bigint) => bigint }[] = [
  { range: '64:ff9b::/96', v4: (v) => v & 0xffffffffn },
  { range: '2002::/16', v4: (v) => (v >> 80n) & 0xffffffffn },
];

/** The ranges parsed at the first check, not at every start of the executable. */
let parsed: { refused: readonly Cidr[]; carriers: readonly { range: Cidr; v4: (value: bigint) => bigint }[] } | undefined;
const ranges = () => (parsed ??= { refused: REFUSED_RANGES.map(range), carriers: CARRIERS.map((c) => ({ ...c, range: range(c.range) })) });

export interface DestinationPolicy {
  /** Whether a connection to this address (the resolved one) may be opened. */
  allows(address: string): boolean;
}

/** The policy of a deployment: everything public, plus what `allowPrivate` (CIDR ranges, or `*`) allow-lists. */
export function destinationPolicy(allowPrivate?: string): DestinationPolicy {
  const allowed = allowPrivate ? parseCidrList(allowPrivate) : [];
  const listed = (ip: IpAddress) => allowed === '*' || allowed.some((r) => inCidr(ip, r));
  const refused = (ip: IpAddress): boolean => {
    const { refused: all, carriers } = ranges();
    if (all.some((r) => inCidr(ip, r))) return true;
    const carrier = carriers.find((c) => inCidr(ip, c.range));
    return carrier !== undefined && all.some((r) => inCidr({ family: 4, value: carrier.v4(ip.value) }, r));
  };
  return {
    allows(address) {
      const ip = parseIp(address);
      if (!ip) return false;
      return listed(ip) || !refused(ip);
    },
  };
}

/** The error a refused destination fails with (delivery.ts: an abort, never retried). */
export class DestinationRefused extends Error {
  readonly code = 'EWEBHOOKDESTINATION';
  constructor(host: string, addresses: readonly string[]) {
    super(
      `destination refused: ${host}${addresses.length > 0 && addresses.join() !== host ? ` resolves to ${addresses.join(', ')}` : ''}, a private, loopback, link-local or reserved address (ENGAGE_WEBHOOK_ALLOW_PRIVATE allow-lists ranges)`,
    );
    this.name = 'DestinationRefused';
  }
}

/** Resolves a name to its addresses (dns.lookup, all of them); tests stub it. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** node:dns loads at the first lookup, not at every start of the executable. */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => (process.getBuiltinModule('node:dns') as typeof dns).lookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/**
 * A `lookup` for sockets (net.connect, an http.Agent) that resolves with `resolver` and answers
 * only the addresses the policy allows; none: the connection fails with DestinationRefused.
 */
export function guardedLookup(policy: DestinationPolicy, resolver: Resolver = systemResolver): LookupFunction {
  return ((hostname: string, options: { family?: number | string; all?: boolean }, callback: (err: Error | null, address?: unknown, family?: number) => void) => {
    resolver(hostname).then(
      (found) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
        const allowed = found.filter((a) => policy.allows(a.address) && (family === 0 || a.family === family));
        if (allowed.length === 0) return callback(new DestinationRefused(hostname, found.map((a) => a.address)));
        if (options.all) return callback(null, allowed);
        callback(null, allowed[0].address, allowed[0].family);
      },
      (err: Error) => callback(err),
    );
  }) as LookupFunction;
}
