import { checkImportUrl, refusedAddress } from './address-policy';

const code = (f: () => unknown) => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return (e as { code: string }).code;
  }
};

describe('import address policy', () => {
  it.each([
    'https://127.0.0.1/a.png',
    'https://127.1.2.3/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://172.31.255.255/',
    'https://192.168.1.10/',
    'https://169.254.169.254/latest/meta-data',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://100.64.0.1/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fc00::1]/',
    'https://[fd12:3456::1]/',
    'https://[fe80::1]/',
    'https://[ff02::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:8.8.8.8]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[2002:7f00:1::]/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.0.0.1/',
    'https://0x7f000001/',
    'https://127.1/',
    'https://017700000001/',
    'https://localhost/',
    'https://foo.localhost/',
    'https://printer.local/',
    'https://intranet/',
    'http://example.com/a.png',
    'ftp://example.com/a.png',
    'https://example.com:8443/a.png',
    'https://example.com:80/a.png',
    'https://user:pw@example.com/a.png',
  ])('refuses %s', (url) => expect(code(() => checkImportUrl(url))).toBe('IMPORT_URL_FORBIDDEN'));

  it.each(['https://example.com/a.png', 'https://example.com:443/a.png', 'https://93.184.216.34/x', 'https://[2606:4700::1111]/'])('allows %s', (url) =>
    expect(code(() => checkImportUrl(url))).toBe('ok'),
  );

  it.each(['not a url', '/relative', 42, ''])('refuses %j as invalid', (url) => expect(code(() => checkImportUrl(url))).toBe('VALIDATION_ERROR'));

  it('classifies resolved addresses', () => {
    expect(refusedAddress('8.8.8.8')).toBeNull();
    expect(refusedAddress('2606:4700::1111')).toBeNull();
    expect(refusedAddress('10.0.0.5')).toBe('private');
    expect(refusedAddress('::ffff:10.0.0.5')).toBe('ipv4Mapped');
    expect(refusedAddress('fc00::5')).toBe('uniqueLocal');
    expect(refusedAddress('nonsense')).not.toBeNull();
  });
});
