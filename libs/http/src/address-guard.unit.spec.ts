import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { ResolveTimeout, isIpLiteral, pinnedLookup, refusedAddress, refusedHostName, resolveAll, resolveCheckedHost } from './address-guard';

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
const hex16 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
const v4hex = (a: string): [string, string] => {
  const o = a.split('.').map(Number);
  return [((o[0] << 8) | o[1]).toString(16), ((o[2] << 8) | o[3]).toString(16)];
};
/** How a browser-grade URL parser spells a bracketed IPv6 host (the form an import sees). */
const urlHost = (v6: string): string => new URL(`https://[${v6}]/`).hostname;

/** Address ranges that must never be dialled, as CIDR blocks; a random address inside each. */
const REFUSED_V4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4'];
const insideV4 = fc.tuple(fc.constantFrom(...REFUSED_V4), fc.integer({ min: 0, max: 0xffffffff })).map(([cidr, rnd]) => {
  const [net, bits] = ipaddr.parseCIDR(cidr) as [ipaddr.IPv4, number];
  const base = net.toByteArray().reduce((a, b) => a * 256 + b, 0);
  const hostBits = 32 - bits;
  const n = base + (hostBits === 32 ? rnd : rnd % 2 ** hostBits);
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
});

describe('address guard (shared by imports and webhook deliveries)', () => {
  it('refuses every address of the private, loopback, link-local, shared, reserved and multicast IPv4 ranges', () => {
    fc.assert(fc.property(insideV4, (a) => refusedAddress(a) !== null));
  });

  it('refuses every embedding of any IPv4 address in IPv6, however it is spelled', () => {
    const embeddings = fc.tuple(ipv4, hex16, hex16, hex16).chain(([a, x, y, z]) => {
      const [hi, lo] = v4hex(a);
      return fc.constantFrom(
        `::${a}`,
        `::${hi}:${lo}`,
        `::ffff:${a}`,
        `::ffff:0:${a}`,
        `64:ff9b::${a}`,
        `64:ff9b:1:${x}::${hi}:${lo}`,
        `2002:${hi}:${lo}::${x}`,
        `2001:0:${x}:${y}:${z}::${hi}`,
        `2a00:${x}:${y}:${z}:0:5efe:${hi}:${lo}`,
        `2a00:${x}:${y}:${z}:200:5efe:${a}`,
      );
    });
    fc.assert(
      fc.property(embeddings, (v6) => {
        expect(refusedAddress(v6)).not.toBeNull();
        expect(refusedAddress(urlHost(v6))).not.toBeNull();
        expect(refusedAddress(`[${ipaddr.parse(v6).toNormalizedString()}]`)).not.toBeNull();
      }),
    );
  });

  it('answers the same for every spelling of an IPv6 address', () => {
    const v6 = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }).map((p) => new ipaddr.IPv6(p));
    fc.assert(
      fc.property(v6, (addr) => {
        const verdict = refusedAddress(addr.toString());
        expect(refusedAddress(addr.toNormalizedString())).toBe(verdict);
        expect(refusedAddress(addr.parts.map((p) => p.toString(16).padStart(4, '0')).join(':'))).toBe(verdict);
        expect(refusedAddress(urlHost(addr.toString()))).toBe(verdict);
      }),
    );
  });

  it('lets plain loopback through only when asked, and nothing else that is refused', () => {
    fc.assert(
      fc.property(fc.oneof(ipv4, insideV4), (a) => {
        const relaxed = refusedAddress(a, { allowLoopback: true });
        if (refusedAddress(a) === null) expect(relaxed).toBeNull();
        else expect(relaxed === null).toBe(a.startsWith('127.'));
      }),
    );
    expect(refusedAddress('::1', { allowLoopback: true })).toBeNull();
    for (const a of ['::ffff:127.0.0.1', '::127.0.0.1', '169.254.169.254', '10.0.0.1', 'fe80::1', 'fd00::1']) expect(refusedAddress(a, { allowLoopback: true })).not.toBeNull();
  });

  it('allows public unicast addresses', () => {
    for (const a of ['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700::1111', '2a00:1450:4001:80b::200e', '[2001:4860:4860::8888]']) expect(refusedAddress(a)).toBeNull();
    expect(refusedAddress('::7f00:1')).toBe('ipv4Compatible');
    expect(refusedAddress('::')).toBe('unspecified');
    expect(refusedAddress('::1')).toBe('loopback');
  });

  it('recognises IP literals and names that are never public', () => {
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('10.0.0.1')).toBe(true);
    expect(isIpLiteral('example.com')).toBe(false);
    for (const n of ['localhost', 'LOCALHOST.', 'a.localhost', 'printer.local', 'db.internal', 'intranet', 'nas.home.arpa', 'box.lan']) expect(refusedHostName(n)).toBe(true);
    expect(refusedHostName('example.com')).toBe(false);
    expect(refusedHostName('localhost', { allowLoopback: true })).toBe(false);
  });
});

describe('resolveCheckedHost and pinnedLookup', () => {
  const resolver = (answers: Record<string, string[]>) => async (host: string) => {
    if (!(host in answers)) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return answers[host];
  };

  it('an IP literal stands for itself; a name resolves; every address is checked', async () => {
    expect(await resolveCheckedHost(new URL('https://[2606:4700::1111]/x'), resolver({}), refusedAddress)).toEqual({ ok: true, host: '2606:4700::1111', addresses: ['2606:4700::1111'] });
    expect(await resolveCheckedHost(new URL('https://example.com/'), resolver({ 'example.com': ['93.184.216.34'] }), refusedAddress)).toEqual({ ok: true, host: 'example.com', addresses: ['93.184.216.34'] });
    expect(await resolveCheckedHost(new URL('https://mixed.example/'), resolver({ 'mixed.example': ['93.184.216.34', '10.0.0.1'] }), refusedAddress)).toMatchObject({ ok: false, reason: 'refused', address: '10.0.0.1', why: expect.any(String) });
  });

  it('says when the name does not resolve or has no address', async () => {
    expect(await resolveCheckedHost(new URL('https://nowhere.example/'), resolver({}), refusedAddress)).toMatchObject({ ok: false, host: 'nowhere.example', reason: 'unresolved' });
    expect(await resolveCheckedHost(new URL('https://empty.example/'), resolver({ 'empty.example': [] }), refusedAddress)).toEqual({ ok: false, host: 'empty.example', reason: 'no_address' });
  });

  it('pinnedLookup answers the checked address for any name, one or all', () => {
    const lookup = pinnedLookup('2606:4700::1111');
    const one = jest.fn();
    const all = jest.fn();
    lookup('other.example', {}, one);
    lookup('other.example', { all: true }, all);
    expect(one).toHaveBeenCalledWith(null, '2606:4700::1111', 6);
    expect(all).toHaveBeenCalledWith(null, [{ address: '2606:4700::1111', family: 6 }]);
  });
});

describe('resolveAll', () => {
  type Lookup = NonNullable<Parameters<typeof resolveAll>[2]>;
  const answering = (addresses: string[]): Lookup => (async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))) as unknown as Lookup;
  const hanging: Lookup = (() => new Promise(() => undefined)) as unknown as Lookup;
  const failing: Lookup = (async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  }) as unknown as Lookup;

  it('answers every address the resolver gives', async () =>
    expect(await resolveAll('example.com', 1_000, answering(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']))).toEqual([
      '93.184.215.14',
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
    ]));
  it("passes the resolver's refusal on", async () => expect(resolveAll('no.such.name', 1_000, failing)).rejects.toMatchObject({ code: 'ENOTFOUND' }));
  it('gives up on a resolver that does not answer in time, so the caller can answer', async () => {
    jest.useFakeTimers();
    try {
      const pending = resolveAll('slow.example', 5_000, hanging);
      jest.advanceTimersByTime(5_000);
      await expect(pending).rejects.toBeInstanceOf(ResolveTimeout);
    } finally {
      jest.useRealTimers();
    }
  });
});
