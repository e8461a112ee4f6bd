/**
 * IP addresses and CIDR ranges as numbers (IPv4 as 32 bits, IPv6 as 128), for address policies
 * such as the outbound webhooks' refusal of private destinations (engage/webhooks/destinations.ts)
 * and the `webhookAllowPrivate` setting that lifts it (platform/config.ts). IPv4-mapped and
 * IPv4-compatible IPv6 addresses are read as the IPv4 address they carry.
 */
import { isIP } from 'node:net';

export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

export interface Cidr {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

function v4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n);
}

function v6(text: string): bigint | undefined {
  let s = text.replace(/%.*$/, '');
  // A trailing dotted quad (::ffff:10.0.0.1) becomes two groups.
  const quad = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (quad) {
    const n = v4(quad[1]);
    if (n === undefined) return undefined;
    s = s.slice(0, -quad[1].length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return undefined;
  const groups = [...head, ...new Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (groups.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** An address as a number, the IPv4 one an IPv4-mapped (::ffff:a.b.c.d) IPv6 address carries; undefined when it is none. */
export function parseIp(text: string): IpAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const kind = isIP(bare.replace(/%.*$/, ''));
  if (kind === 4) return { family: 4, value: v4(bare)! };
  if (kind !== 6) return undefined;
  const value = v6(bare);
  if (value === undefined) return undefined;
  if (value >> 32n === 0xffffn) return { family: 4, value: value & 0xffffffffn };
  return { family: 6, value };
}

const bitsOf = (family: 4 | 6) => (family === 4 ? 32 : 128);

/** `a.b.c.d/n`, `x:y::/n`, or an address alone (its own /32 or /128); undefined when it is none. */
export function parseCidr(text: string): Cidr | undefined {
  const [addr, len, ...rest] = text.trim().split('/');
  if (rest.length > 0) return undefined;
  const bare = addr.startsWith('[') && addr.endsWith(']') ? addr.slice(1, -1) : addr;
  const kind = isIP(bare);
  if (kind !== 4 && kind !== 6) return undefined;
  const family = kind;
  const value = family === 4 ? v4(bare) : v6(bare);
  if (value === undefined) return undefined;
  const bits = bitsOf(family);
  if (len !== undefined && !/^\d{1,3}$/.test(len)) return undefined;
  const prefix = len === undefined ? bits : Number(len);
  if (prefix > bits) return undefined;
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  return { family, base: value & mask, prefix };
}

/** Whether the address lies in the range (IPv4 ranges match IPv4-mapped IPv6 addresses, as parseIp reads them). */
export function inCidr(ip: IpAddress, range: Cidr): boolean {
  if (ip.family !== range.family) return false;
  const shift = BigInt(bitsOf(range.family) - range.prefix);
  return ip.value >> shift === range.base >> shift;
}

/**
 * A comma-separated list of CIDR ranges, or `*` (every address). Throws an Error naming the
 * first entry that is not one.
 */
export function parseCidrList(text: string): Cidr[] | '*' {
  if (text.trim() === '*') return '*';
  const entries = text.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (entries.length === 0) throw new Error('expected CIDR ranges separated by commas (10.0.0.0/8,fd00::/8), or *');
  return entries.map((e) => {
    const c = parseCidr(e);
    if (!c) throw new Error(`${JSON.stringify(e)} is not a CIDR range (such as 10.0.0.0/8, 127.0.0.1 or fd00::/8)`);
    return c;
  });
}
