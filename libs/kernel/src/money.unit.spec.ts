import fc from 'fast-check';
import { MICROS_PER_UNIT, Money } from './money';

describe('Money', () => {
  it('parses decimal strings into micro-units', () => {
    expect(Money.parse('0')).toBe(0n);
    expect(Money.parse('12')).toBe(12_000_000n);
    expect(Money.parse('0.5')).toBe(500_000n);
    expect(Money.parse('1.250000')).toBe(1_250_000n);
    expect(Money.parse('0.000001')).toBe(1n);
    expect(Money.parse('999999999999999.999999')).toBe(999_999_999_999_999_999_999n);
  });

  it.each(['', ' 1', '1 ', '-1', '+1', '1.', '.5', '1.0000001', '1e3', '0x10', '1,5', 'NaN', '1234567890123456'])('refuses %j', (text) => {
    expect(() => Money.parse(text)).toThrow(RangeError);
    expect(Money.isAmount(text)).toBe(false);
  });

  it('isAmount accepts only strings in the amount format', () => {
    expect(Money.isAmount('3.14')).toBe(true);
    expect(Money.isAmount(3.14)).toBe(false);
    expect(Money.isAmount(null)).toBe(false);
  });

  it('formats with exactly six decimals', () => {
    expect(Money.format(0n)).toBe('0.000000');
    expect(Money.format(1n)).toBe('0.000001');
    expect(Money.format(12_500_000n)).toBe('12.500000');
    expect(Money.format(10n ** 21n)).toBe('1000000000000000.000000');
    expect(() => Money.format(-1n)).toThrow(RangeError);
  });

  it('format and parse are inverse', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 21n - 1n }), (m) => {
        const text = Money.format(m);
        expect(text).toMatch(/^\d+\.\d{6}$/);
        expect(Money.parse(text)).toBe(m);
      }),
    );
  });

  it('multiply rounds up to the micro-unit and never undercharges', () => {
    expect(Money.multiply(1_000_000n, 3)).toBe(3_000_000n);
    expect(Money.multiply(1n, 1, 3)).toBe(1n); // 1/3 µ rounds up
    expect(Money.multiply(10n, 3, 4)).toBe(8n); // 7.5 -> 8
    expect(Money.multiply(10n, 4, 4)).toBe(10n);
    expect(Money.multiply(123n, 0)).toBe(0n);
    expect(Money.multiply(2_000_000n, 1500, 1000)).toBe(3_000_000n); // per-1000 units
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 10 ** 6 }), fc.integer({ min: 1, max: 10 ** 6 }), (p, q, per) => {
        const r = Money.multiply(p, q, per);
        expect(r * BigInt(per)).toBeGreaterThanOrEqual(p * BigInt(q));
        expect((r - 1n) * BigInt(per)).toBeLessThan(p * BigInt(q) === 0n ? 1n : p * BigInt(q));
      }),
    );
    expect(() => Money.multiply(1n, -1)).toThrow(RangeError);
    expect(() => Money.multiply(1n, 1, 0)).toThrow(RangeError);
  });

  it('formats a signed difference, keeping format for amounts', () => {
    expect(Money.formatSigned(-10_000n)).toBe('-0.010000');
    expect(Money.formatSigned(1_500_000n)).toBe('1.500000');
    expect(Money.formatSigned(0n)).toBe('0.000000');
    expect(() => Money.format(-1n)).toThrow(RangeError);
  });

  it('min, max and the unit constant', () => {
    expect(Money.min(3n, 5n)).toBe(3n);
    expect(Money.max(3n, 5n)).toBe(5n);
    expect(MICROS_PER_UNIT).toBe(1_000_000n);
    expect(Money.zero).toBe(0n);
  });
});
