// Which addresses a delivery to a client's webhook endpoint may connect to. The URL comes from a client, so
// by default only public unicast addresses are reached: an endpoint must not turn the server into a way into
// the networks it sits on (its loopback, the private ranges, the cloud's metadata address). The same rule
// holds at registration, for the URL as written or the addresses its name resolves to, and at each attempt,
// for the addresses the name resolves to then, which are the only ones the attempt connects to: a name that
// later resolves elsewhere (DNS rebinding) is refused, not reached. The operator may allow networks
// (WEBHOOK_ALLOWED_NETWORKS), and plain http (WEBHOOK_ALLOW_HTTP).
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** A network that is not public unicast, and what it is, as a refusal names it. */
interface Network {
  address: string;
  prefix: number;
  what: string;
}

/**
 * Never reached unless the operator allows them. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are judged as
 * the IPv4 address they carry (BlockList does), and so are NAT64's (64:ff9b::/96), here.
 */
const NOT_PUBLIC: readonly Network[] = [
  { address: '0.0.0.0', prefix: 8, what: 'unspecified ("this network")' },
  { address: '10.0.0.0', prefix: 8, what: 'private' },
  { address: '100.64.0.0', prefix: 10, what: 'shared address space (carrier-grade NAT)' },
  { address: '127.0.0.0', prefix: 8, what: 'loopback' },
  { address: '169.254.0.0', prefix: 16, what: 'link-local (the cloud metadata address among them)' },
  { address: '172.16.0.0', prefix: 12, what: 'private' },
  { address: '192.0.0.0', prefix: 24, what: 'reserved for protocol assignments' },
  { address: '192.0.2.0', prefix: 24, what: 'documentation' },
  { address: '192.168.0.0', prefix: 16, what: 'private' },
  { address: '198.18.0.0', prefix: 15, what: 'benchmarking' },
  { address: '198.51.100.0', prefix: 24, what: 'documentation' },
  { address: '203.0.113.0', prefix: 24, what: 'documentation' },
  { address: '224.0.0.0', prefix: 4, what: 'multicast' },
  { address: '240.0.0.0', prefix: 4, what: 'reserved (the broadcast address among them)' },
  { address: '::', prefix: 128, what: 'unspecified' },
  { address: '::1', prefix: 128, what: 'loopback' },
  // The deprecated IPv4-compatible form, and the discard prefix.
  { address: '::', prefix: 96, what: 'IPv4-compatible (deprecated)' },
  { address: '100::', prefix: 64, what: 'discard-only' },
  { address: '2001:db8::', prefix: 32, what: 'documentation' },
  { address: 'fc00::', prefix: 7, what: 'unique local (private)' },
  { address: 'fe80::', prefix: 10, what: 'link-local' },
  { address: 'ff00::', prefix: 8, what: 'multicast' },
];

const NAT64 = { address: '64:ff9b::', prefix: 96 };

const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

function blockListOf(networks: readonly Pick<Network, 'address' | 'prefix'>[]): BlockList {
  const list = new BlockList();
  for (const { address, prefix } of networks) list.addSubnet(address, prefix, familyOf(address));
  return list;
}

const NOT_PUBLIC_LIST = NOT_PUBLIC.map((network) => ({ network, list: blockListOf([network]) }));
const NAT64_LIST = blockListOf([NAT64]);

/** What an operator allows beyond public unicast addresses. */
export interface AddressPolicy {
  /** Plain `http://` endpoints (WEBHOOK_ALLOW_HTTP=true); otherwise `https://` only. */
  allowHttp: boolean;
  /** Networks reached whatever they are (WEBHOOK_ALLOWED_NETWORKS); undefined for none. */
  allowed: BlockList | undefined;
}

/**
 * The policy of the operator's settings: `allowedNetworks` as WEBHOOK_ALLOWED_NETWORKS writes them
 * (`127.0.0.0/8,::1/128`), each an address and a prefix length, or an address alone (that one address).
 * Throws a message naming the first entry that is not one.
 */
export function addressPolicy({ allowHttp = false, allowedNetworks = '' }: { allowHttp?: boolean; allowedNetworks?: string }): AddressPolicy {
  const entries = allowedNetworks.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return { allowHttp, allowed: entries.length === 0 ? undefined : blockListOf(entries.map(networkOf)) };
}

function networkOf(entry: string): Pick<Network, 'address' | 'prefix'> {
  const [address = '', prefixText, ...rest] = entry.split('/');
  const family = isIP(address);
  const longest = family === 6 ? 128 : 32;
  const prefix = prefixText === undefined ? longest : Number(prefixText);
  if (family === 0 || rest.length > 0 || !/^\d{1,3}$/.test(prefixText ?? '0') || prefix > longest) {
    throw new Error(`"${entry}" is not a network: write an address and a prefix length, such as 127.0.0.0/8 or ::1/128`);
  }
  return { address, prefix };
}

/** Why `address` (an IP address, either family) may not be reached under `policy`; undefined when it may. */
export function refusalOf(address: string, policy: AddressPolicy): string | undefined {
  const family = familyOf(address);
  if (policy.allowed?.check(address, family)) return undefined;
  // NAT64 carries an IPv4 address in its last 32 bits: judged as that address.
  if (family === 'ipv6' && NAT64_LIST.check(address, 'ipv6')) return refusalOf(embeddedIpv4(address), policy);
  const refused = NOT_PUBLIC_LIST.find(({ list }) => list.check(address, family));
  return refused && `${address} is ${refused.network.what}, not a public address`;
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function embeddedIpv4(address: string): string {
  const tail = address.slice(address.lastIndexOf(':') + 1);
  if (tail.includes('.')) return tail;
  const groups = address.split(':');
  const [high = '0', low = '0'] = groups.slice(-2).map((group) => group || '0');
  const value = (Number.parseInt(high, 16) << 16) | Number.parseInt(low, 16);
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}

/** Every address `hostname` resolves to, as the system resolver (and so /etc/hosts) says. */
export type Resolve = (hostname: string) => Promise<string[]>;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map(({ address }) => address));
    });
  });

/** An endpoint URL a client may register, or why not. */
export type UrlVerdict = { url: URL } | { refused: string };

/** The longest URL an endpoint may have. */
export const MAX_URL_LENGTH = 2_048;

/**
 * Whether a client's endpoint URL may be registered under `policy`: an absolute https URL (http if the
 * operator allows it), with no user name or password, whose host is an address that may be reached or a
 * name whose every address may be, or that does not resolve now.
 */
export async function checkEndpointUrl(text: string, policy: AddressPolicy, resolve: Resolve = systemResolve): Promise<UrlVerdict> {
  if (text.length > MAX_URL_LENGTH) return { refused: `the URL is longer than ${MAX_URL_LENGTH} characters` };
  if (!URL.canParse(text)) return { refused: 'the URL is not an absolute URL' };
  const url = new URL(text);
  // As it will be sent and stored: escaped, which may make it longer than written.
  if (url.href.length > MAX_URL_LENGTH) return { refused: `the URL is longer than ${MAX_URL_LENGTH} characters once escaped` };
  const schemes = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    return { refused: policy.allowHttp ? 'the URL must be https:// or http://' : 'the URL must be https://' };
  }
  if (url.username !== '' || url.password !== '') return { refused: 'the URL must not hold a user name or password' };
  const host = hostOf(url);
  if (isIP(host) !== 0) {
    const refusal = refusalOf(host, policy);
    return refusal === undefined ? { url } : { refused: refusal };
  }
  // A name that does not resolve now is no way in: it may be set up later, and every attempt checks again.
  const addresses = await resolve(host).catch(() => []);
  for (const address of addresses) {
    const refusal = refusalOf(address, policy);
    if (refusal !== undefined) return { refused: `${host} resolves to ${address}: ${refusal}` };
  }
  return { url };
}

/** The URL's host as an address or a name: without an IPv6 address's brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The `lookup` of the agent that sends deliveries: it resolves a name as `resolve` does at the moment of
 * connecting, and fails the connection, without making it, when any address is one `policy` refuses, so the
 * attempt reaches only an address that was checked. (An address written in the URL is not looked up: the
 * attempt checks it itself, with refusalOf.)
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((address) => refusalOf(address, policy) !== undefined);
        const refusal = refused && `${hostname} resolves to ${refused}: ${refusalOf(refused, policy)}`;
        if (addresses.length === 0 || refusal !== undefined) {
          const error: NodeJS.ErrnoException = new Error(refusal ?? `${hostname} does not resolve`);
          error.code = refusal ? 'EADDRNOTALLOWED' : 'ENOTFOUND';
          callback(error, '', 0);
          return;
        }
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options.all) callback(null, entries);
        else callback(null, entries[0]?.address ?? '', entries[0]?.family ?? 4);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
