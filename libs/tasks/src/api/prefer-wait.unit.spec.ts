import { preferredWait } from './prefer-wait';

describe('preferredWait (Prefer: wait=N, RFC 7240)', () => {
  it.each([
    ['wait=10', 10],
    ['wait=1', 1],
    ['wait=60', 60],
    ['WAIT=5', 5],
    ['wait = 7', 7],
    ['wait="12"', 12],
    ['wait=05', 5],
    ['respond-async, wait=30', 30],
    ['handling=lenient; x="a,b", wait=3;foo=bar', 3],
    ['return=minimal,wait=2', 2],
  ])('%s → %s', (header, seconds) => {
    expect(preferredWait(header)).toBe(seconds);
  });

  it.each([
    [undefined],
    [''],
    ['wait'],
    ['wait='],
    ['wait=0'],
    ['wait=61'],
    ['wait=1000'],
    ['wait=-1'],
    ['wait=1.5'],
    ['wait=abc'],
    ['wait=10s'],
    ['respond-async'],
    ['x="wait=5"'],
    ['waiting=5'],
  ])('ignores %p', (header) => {
    expect(preferredWait(header)).toBeUndefined();
  });

  it('counts only the first wait, across repeated headers too', () => {
    expect(preferredWait('wait=5, wait=9')).toBe(5);
    expect(preferredWait(['respond-async', 'wait=4', 'wait=8'])).toBe(4);
    expect(preferredWait('wait=0, wait=9')).toBeUndefined();
  });
});
