import { checkFileName, contentDisposition, decodeFileNameHeader } from './file-name';
import { acceptedContentType } from './media-types';

describe('file names', () => {
  it('decodes URL-encoded names', () => {
    expect(decodeFileNameHeader('photo%20%E2%9C%93.png')).toBe('photo ✓.png');
    expect(decodeFileNameHeader('plain.txt')).toBe('plain.txt');
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
