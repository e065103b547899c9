import { checkFileName, contentDisposition, decodeFileNameHeader } from './file-name';
import { acceptedContentType } from './media-types';

describe('file names', () => {
  it('decodes URL-encoded names', () => {
    expect(decodeFileNameHeader('photo%20%E2%9C%93.png')).toBe('photo ✓.png');
    expect(decodeFileNameHeader('plain.txt')).toBe('plain.txt');
  });

  /** A header value as Node hands it over: each byte one Latin-1 character. */
  const asReceived = (bytes: Buffer) => bytes.toString('latin1');

  it('reads a name sent as raw UTF-8 as UTF-8, not Latin-1 (café, not cafÃ©), taken as it is', () => {
    expect(decodeFileNameHeader(asReceived(Buffer.from('café.txt', 'utf8')))).toBe('café.txt');
    expect(decodeFileNameHeader(asReceived(Buffer.from('日本語 ☕ 100%.txt', 'utf8')))).toBe('日本語 ☕ 100%.txt');
    expect(decodeFileNameHeader(asReceived(Buffer.from('résumé%20x.pdf', 'utf8')))).toBe('résumé%20x.pdf');
  });

  it('keeps bytes that are not UTF-8 as Latin-1, and refuses control characters sent raw', () => {
    expect(decodeFileNameHeader(asReceived(Buffer.from('caf\xe9.txt', 'latin1')))).toBe('café.txt');
    for (const name of ['a\u202Eb.txt', 'a\u0085b.txt', 'a\u2066b.txt']) {
      expect(() => decodeFileNameHeader(asReceived(Buffer.from(name, 'utf8')))).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    }
  });

  it.each([undefined, '', '%E0%A4%A', 'a%2Fb.png', '..%5Cx', 'a%00b', 'line%0Abreak', '..', 'x'.repeat(201), '%20%20'])('refuses %j', (h) => {
    expect(() => decodeFileNameHeader(h)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });

  it('counts characters, not UTF-16 units', () => {
    expect(checkFileName('😀'.repeat(200), 'name')).toHaveLength(400);
  });

  it('writes RFC 6266 dispositions with an ASCII fallback and the exact UTF-8 name', () => {
    expect(contentDisposition('attachment', 'Grüße "x".txt')).toBe(`attachment; filename="Gr__e _x_.txt"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%22x%22.txt`);
    expect(contentDisposition('inline', "it's (1).png")).toBe(`inline; filename="it's (1).png"; filename*=UTF-8''it%27s%20%281%29.png`);
  });
});

describe('content types', () => {
  it('accepts the listed types, with a UTF-8 charset at most', () => {
    expect(acceptedContentType('image/png')).toBe('image/png');
    expect(acceptedContentType('Text/Plain; charset=UTF-8')).toBe('text/plain');
  });
  it.each([undefined, '', 'image/gif', 'text/plain; charset=latin1', 'application/octet-stream', 'image'])('refuses %j with 415', (h) => {
    expect(() => acceptedContentType(h)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_MEDIA_TYPE' }));
  });
});
