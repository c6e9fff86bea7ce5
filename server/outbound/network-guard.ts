import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { AppError } from '../errors.js';

/**
 * Outbound requests to addresses chosen by customers (webhook urls now, `image_url` downloads later) must not reach
 * our own network: loopback, private, link-local (cloud metadata), unique-local, CGNAT, unspecified, multicast and
 * reserved ranges are refused, also when hidden in IPv4-mapped or NAT64 IPv6 forms. ALLOW_PRIVATE_NETWORK lifts it.
 */
export interface NetworkPolicy {
  allowPrivateNetwork: boolean;
}

export type ResolvedAddress = { address: string; family: number };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const IPV4_BLOCKED: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function isBlockedIpv4(ip: string): boolean {
  const value = ipv4ToInt(ip);
  return IPV4_BLOCKED.some(
    ([base, bits]) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(ipv4ToInt(base) / 2 ** (32 - bits)),
  );
}

/** 16 bytes of an IPv6 address (with `::` and a dotted IPv4 tail handled). */
function ipv6Bytes(ip: string): number[] {
  let text = ip.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const v4 = ipv4ToInt(dotted);
    text = `${text.slice(0, -dotted.length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...(tail === undefined ? [] : Array(missing).fill('0')), ...tailGroups];
  return groups.flatMap((group) => {
    const value = parseInt(group || '0', 16);
    return [value >> 8, value & 0xff];
  });
}

function isBlockedIpv6(ip: string): boolean {
  const b = ipv6Bytes(ip);
  const [b0 = 0, b1 = 0] = b;
  const zeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  const embeddedV4 = () => b.slice(12).join('.');
  if (zeroUpTo(16)) return true; // :: unspecified
  if (zeroUpTo(15) && b[15] === 1) return true; // ::1 loopback
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return isBlockedIpv4(embeddedV4()); // ::ffff:a.b.c.d mapped
  if (zeroUpTo(12)) return true; // ::a.b.c.d, deprecated IPv4-compatible
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b.slice(4, 12).every((x) => x === 0))
    return isBlockedIpv4(embeddedV4()); // 64:ff9b::/96 NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return isBlockedIpv4(b.slice(2, 6).join('.')); // 2002::/16 6to4
  if ((b0 & 0xfe) === 0xfc) return true; // fc00::/7 unique local
  if (b[0] === 0xfe && (b1 & 0xc0) === 0x80) return true; // fe80::/10 link-local
  if (b[0] === 0xfe && (b1 & 0xc0) === 0xc0) return true; // fec0::/10 site-local (deprecated)
  if (b[0] === 0xff) return true; // multicast
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return true; // 2001:db8::/32 documentation
  return false;
}

/** True for every address a customer-supplied URL must not reach. Anything that is not an IP is refused too. */
export function isPrivateAddress(ip: string): boolean {
  const family = isIP(ip.replace(/%.*$/, ''));
  if (family === 4) return isBlockedIpv4(ip);
  if (family === 6) return isBlockedIpv6(ip);
  return true;
}

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

function refuse(message: string): AppError {
  return new AppError('invalid_request', message, { details: [{ path: 'url', message }] });
}

/** The hostname of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Checks that `raw` is an absolute http(s) URL whose host resolves only to public addresses (every address the
 * resolver returns, so one private A record among public ones is enough to refuse). Throws AppError invalid_request.
 */
export async function assertPublicUrl(
  raw: string | URL,
  policy: NetworkPolicy & { resolver?: Resolver },
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('The url is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw refuse('The url must start with http:// or https://.');
  if (url.username || url.password) throw refuse('The url must not contain credentials.');
  if (policy.allowPrivateNetwork) return url;
  const host = bareHost(url);
  if (isIP(host)) {
    if (isPrivateAddress(host))
      throw refuse(`The url points to a private or loopback address (${host}), which is not allowed.`);
    return url;
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await (policy.resolver ?? systemResolver)(host);
  } catch {
    throw refuse(`The host ${host} could not be resolved.`);
  }
  if (addresses.length === 0) throw refuse(`The host ${host} could not be resolved.`);
  const blocked = addresses.find((a) => isPrivateAddress(a.address));
  if (blocked)
    throw refuse(
      `The host ${host} resolves to a private or loopback address (${blocked.address}), which is not allowed.`,
    );
  return url;
}

/**
 * A `lookup` for node:http(s) requests that refuses private addresses at connect time, so a DNS answer that changed
 * after the url was checked (rebinding) still cannot reach the internal network. IP literals skip lookup: check
 * them with `assertPublicUrl` first.
 */
export function guardedLookup(policy: NetworkPolicy): LookupFunction | undefined {
  if (policy.allowPrivateNetwork) return undefined;
  return ((hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error);
      const list = addresses as ResolvedAddress[];
      const blocked = list.find((a) => isPrivateAddress(a.address));
      const [first] = list;
      if (blocked || !first) {
        const refused = Object.assign(
          new Error(`Refused: ${hostname} resolves to a private address (${blocked?.address ?? 'none'})`),
          {
            code: 'EPRIVATEADDRESS',
          },
        );
        return callback(refused);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}
