// Which endpoint URLs a client may register, and which addresses a delivery may connect to: every way of
// writing or naming an address that is not public unicast is refused by default, and a name that resolves
// to a public address at registration and to loopback at delivery is never connected to.
import { once } from 'node:events';
import { type Agent as HttpAgent, Agent, createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressPolicy,
  checkEndpointUrl,
  guardedLookup,
  MAX_URL_LENGTH,
  refusalOf,
  type Resolve,
} from '../../src/delivery/addresses.js';

const byDefault = addressPolicy({});
/** A resolver that knows the names given, and no other. */
const resolver =
  (names: Record<string, string[]>): Resolve =>
  (hostname) =>
    hostname in names ? Promise.resolve(names[hostname] as string[]) : Promise.reject(new Error(`ENOTFOUND ${hostname}`));
const refusal = async (url: string, policy = byDefault, resolve?: Resolve) => {
  const verdict = await checkEndpointUrl(url, policy, resolve);
  return 'refused' in verdict ? verdict.refused : undefined;
};

describe('an endpoint URL, by default', () => {
  // Each way of writing an address that is not public: the URL parser reads the IPv4 forms (decimal, octal,
  // hex, short) as the address they mean, and IPv6's mapped and NAT64 forms carry an IPv4 address.
  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://127.1/', 'loopback'],
    ['https://0x7f.1/', 'loopback'],
    ['https://0x7f000001/', 'loopback'],
    ['https://2130706433/', 'loopback'],
    ['https://017700000001/', 'loopback'],
    ['https://0177.0.0.1/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/', 'loopback'],
    ['https://[64:ff9b::7f00:1]/', 'loopback'],
    ['https://10.1.2.3/', 'private'],
    ['https://172.16.0.1/', 'private'],
    ['https://172.31.255.255/', 'private'],
    ['https://192.168.1.1:8443/', 'private'],
    ['https://[::ffff:192.168.0.1]/', 'private'],
    ['https://169.254.169.254/latest/meta-data/', 'link-local'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'link-local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://100.64.0.1/', 'carrier-grade NAT'],
    ['https://100.127.255.255/', 'carrier-grade NAT'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://0/', 'unspecified'],
    ['https://[::]/', 'unspecified'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://255.255.255.255/', 'broadcast'],
    ['https://[fc00::1]/', 'unique local'],
    ['https://[fd12:3456::1]/', 'unique local'],
    ['https://[::7f00:1]/', 'IPv4-compatible'],
  ])('refuses %s: %s', async (url, what) => {
    expect(await refusal(url)).toContain(what);
  });

  it.each([
    'https://93.184.215.14/hook',
    'https://172.15.255.255/',
    'https://172.32.0.0/',
    'https://100.63.255.255/',
    'https://100.128.0.0/',
    'https://169.253.255.255/',
    'https://[2606:4700:4700::1111]/',
    'https://[64:ff9b::5db8:d70e]/',
  ])('accepts %s, a public address', async (url) => {
    expect(await refusal(url)).toBeUndefined();
  });

  it('refuses a name that resolves to an address that is not public, or to one among others', async () => {
    const resolve = resolver({ 'inside.example': ['10.0.0.7'], 'both.example': ['93.184.215.14', '::1'] });
    expect(await refusal('https://inside.example/', byDefault, resolve)).toBe(
      'inside.example resolves to 10.0.0.7: 10.0.0.7 is private, not a public address',
    );
    expect(await refusal('https://both.example/', byDefault, resolve)).toContain('::1 is loopback');
    // Not now: it may be set up later, and each attempt checks the address it connects to.
    expect(await checkEndpointUrl('https://nowhere.example/', byDefault, resolve)).toEqual({ url: new URL('https://nowhere.example/') });
  });

  it('refuses localhost through the system resolver, as /etc/hosts names it', async () => {
    expect(await refusal('https://localhost:8443/')).toMatch(/^localhost resolves to (127\.0\.0\.1|::1): \1 is loopback/);
  });

  it('accepts a name whose every address is public', async () => {
    const resolve = resolver({ 'hooks.example': ['93.184.215.14', '2606:4700:4700::1111'] });
    expect(await checkEndpointUrl('https://hooks.example/in?x=1', byDefault, resolve)).toEqual({ url: new URL('https://hooks.example/in?x=1') });
  });

  it.each([
    ['http://93.184.215.14/', 'the URL must be https://'],
    ['ftp://93.184.215.14/', 'the URL must be https://'],
    ['https://user:secret@93.184.215.14/', 'the URL must not hold a user name or password'],
    ['https://user@93.184.215.14/', 'the URL must not hold a user name or password'],
    ['/relative/hook', 'the URL is not an absolute URL'],
    [`https://93.184.215.14/${'a'.repeat(MAX_URL_LENGTH)}`, `the URL is longer than ${MAX_URL_LENGTH} characters`],
  ])('refuses %s', async (url, why) => {
    expect(await refusal(url)).toBe(why);
  });
});

describe('an endpoint URL, with what the operator allows', () => {
  const local = addressPolicy({ allowHttp: true, allowedNetworks: '127.0.0.0/8, ::1/128' });

  it('accepts http://, and the allowed networks however written, and nothing else beyond public addresses', async () => {
    for (const url of ['http://127.0.0.1:3000/hook', 'http://0x7f.1/', 'https://[::1]/', 'http://localhost:8080/', 'http://93.184.215.14/']) {
      expect(await refusal(url, local), url).toBeUndefined();
    }
    expect(await refusal('http://10.0.0.1/', local)).toContain('private');
    expect(await refusal('ftp://127.0.0.1/', local)).toBe('the URL must be https:// or http://');
  });

  it('takes a single address as its own network', () => {
    const one = addressPolicy({ allowedNetworks: '10.0.0.7' });
    expect(refusalOf('10.0.0.7', one)).toBeUndefined();
    expect(refusalOf('10.0.0.8', one)).toContain('private');
  });

  it.each(['bogus', '10.0.0.0/33', '::1/129', '10.0.0.0/8/1', '10.0.0.0/x', 'localhost/8'])('refuses the network "%s", naming it', (entry) => {
    expect(() => addressPolicy({ allowedNetworks: `127.0.0.0/8,${entry}` })).toThrow(`"${entry}" is not a network`);
  });
});

describe("a delivery's connection", () => {
  let server: ReturnType<typeof createServer>;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((_request, response) => response.end('ok'));
    server.on('connection', () => {
      connections += 1;
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** GET http://rebinding.example:<port>/ through an agent whose lookup is guarded by `policy`. */
  function getThrough(agent: HttpAgent): Promise<{ status?: number; error?: NodeJS.ErrnoException }> {
    return new Promise((resolve) => {
      const request = get({ host: 'rebinding.example', port, path: '/', agent }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
      });
      request.on('error', (error: NodeJS.ErrnoException) => resolve({ error }));
    });
  }

  it('never connects to a name that resolved to a public address at registration and resolves to loopback now', async () => {
    const atRegistration = resolver({ 'rebinding.example': ['93.184.215.14'] });
    expect(await refusal(`https://rebinding.example:${port}/`, byDefault, atRegistration)).toBeUndefined();
    const now = resolver({ 'rebinding.example': ['127.0.0.1'] });
    const before = connections;
    const agent = new Agent({ lookup: guardedLookup(byDefault, now) });
    const { status, error } = await getThrough(agent);
    agent.destroy();
    expect(status).toBeUndefined();
    expect(error?.code).toBe('EADDRNOTALLOWED');
    expect(error?.message).toBe('rebinding.example resolves to 127.0.0.1: 127.0.0.1 is loopback, not a public address');
    // What the server saw: no connection at all.
    expect(connections).toBe(before);
  });

  it('connects where the operator allows the network, to the address resolved', async () => {
    const now = resolver({ 'rebinding.example': ['127.0.0.1'] });
    const agent = new Agent({ lookup: guardedLookup(addressPolicy({ allowedNetworks: '127.0.0.0/8' }), now) });
    const before = connections;
    expect(await getThrough(agent)).toEqual({ status: 200 });
    agent.destroy();
    expect(connections).toBe(before + 1);
  });
});
