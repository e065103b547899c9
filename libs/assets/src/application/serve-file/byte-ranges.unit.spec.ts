import { decideRange, noneMatchHits } from './byte-ranges';

const v = { etag: '"abc"', lastModified: new Date('2026-01-01T00:00:00Z') };
const d = (range?: string, ifRange?: string) => decideRange(100, { range, ifRange }, v);

describe('byte ranges', () => {
  it('serves the whole file without Range', () => expect(d()).toEqual({ kind: 'full' }));

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=90-', 90, 99],
    ['bytes=-10', 90, 99],
    ['bytes=-1000', 0, 99],
    ['bytes=95-1000', 95, 99],
    ['bytes=0-0', 0, 0],
    ['bytes=99-99', 99, 99],
  ])('%s → %i-%i', (range, start, end) => expect(d(range)).toEqual({ kind: 'partial', range: { start, end } }));

  it.each(['bytes=100-', 'bytes=100-200', 'bytes=5-2', 'bytes=-0', 'bytes=0-1,5-6', 'bytes=-', 'bytes=a-b', 'bytes 0-1', 'BYTES=0-1,2-3'])('%s is unsatisfiable or unsupported (416)', (range) =>
    expect(d(range)).toEqual({ kind: 'unsatisfiable' }),
  );

  it.each(['items=0-1', 'Items=0-5', 'none', 'x-bytes=0-3', 'bytesx=0-1', ''])('ignores the Range %p of another unit (whole file, RFC 9110 §14.2)', (range) =>
    expect(d(range)).toEqual({ kind: 'full' }),
  );

  it('honours If-Range only when the validator matches', () => {
    expect(d('bytes=0-9', '"abc"').kind).toBe('partial');
    expect(d('bytes=0-9', '"old"').kind).toBe('full');
    expect(d('bytes=0-9', 'W/"abc"').kind).toBe('full');
    expect(d('bytes=0-9', v.lastModified.toUTCString()).kind).toBe('partial');
    expect(d('bytes=0-9', new Date('2025-01-01').toUTCString()).kind).toBe('full');
    expect(d('bytes=0-1,3-4', '"old"').kind).toBe('full');
  });

  it('matches If-None-Match weakly', () => {
    expect(noneMatchHits('"abc"', '"abc"')).toBe(true);
    expect(noneMatchHits('W/"abc", "x"', '"abc"')).toBe(true);
    expect(noneMatchHits('*', '"abc"')).toBe(true);
    expect(noneMatchHits('"x"', '"abc"')).toBe(false);
    expect(noneMatchHits(undefined, '"abc"')).toBe(false);
  });
});
