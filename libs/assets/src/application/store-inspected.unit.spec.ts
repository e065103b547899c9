import fc from 'fast-check';
import { tooSlow } from './store-inspected';

const KIB = 1024;

describe('the pace of a receive (64 KiB in 10 s, unless the rest still arrives in time)', () => {
  it('keeps any receive that brings at least the minimum in a window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 64 * KIB, max: 1 << 30 }), fc.option(fc.nat()), fc.integer({ min: 0, max: 60_000 }), (inWindow, remaining, left) => {
        expect(tooSlow(inWindow, 10_000, 64 * KIB, remaining ?? undefined, left)).toBe(false);
      }),
    );
  });

  it('ends one that brings less when the size is unknown, or when nothing came', () => {
    expect(tooSlow(64 * KIB - 1, 10_000, 64 * KIB, undefined, 50_000)).toBe(true);
    expect(tooSlow(10, 10_000, 64 * KIB, undefined, 50_000)).toBe(true);
    expect(tooSlow(0, 10_000, 64 * KIB, 1, 50_000)).toBe(true);
  });

  it('keeps a slow one whose rest arrives before the time limit at that pace, ends it otherwise', () => {
    // 10 KiB per 10 s: 30 KiB left need 30 s.
    expect(tooSlow(10 * KIB, 10_000, 64 * KIB, 30 * KIB, 40_000)).toBe(false);
    expect(tooSlow(10 * KIB, 10_000, 64 * KIB, 30 * KIB, 29_000)).toBe(true);
    // One byte a second toward 64 MiB: far too slow.
    expect(tooSlow(10, 10_000, 64 * KIB, 64 * 1024 * KIB, 50_000)).toBe(true);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 * KIB - 1 }), fc.nat({ max: 1 << 26 }), fc.integer({ min: 0, max: 60_000 }), (inWindow, remaining, left) => {
        expect(tooSlow(inWindow, 10_000, 64 * KIB, remaining, left)).toBe((remaining * 10_000) / inWindow > left);
      }),
    );
  });
});
