/**
 * CNY amounts as integer micro-units (1 CNY = 1_000_000 µ). The only place that does
 * arithmetic on amounts or turns them into strings. Never floating point.
 */
export type Micros = bigint;

export const MICROS_PER_UNIT = 1_000_000n;
const AMOUNT = /^(\d{1,15})(?:\.(\d{1,6}))?$/;

export const Money = {
  zero: 0n as Micros,

  /** Parses a non-negative decimal string with up to 6 decimals ("12", "0.5", "1.250000"). */
  parse(text: string): Micros {
    const m = AMOUNT.exec(text);
    if (!m) throw new RangeError(`not a CNY amount: ${JSON.stringify(text)}`);
    return BigInt(m[1]) * MICROS_PER_UNIT + BigInt((m[2] ?? '').padEnd(6, '0'));
  },

  isAmount(text: unknown): text is string {
    return typeof text === 'string' && AMOUNT.test(text);
  },

  /** Formats as the spec's `^\d+\.\d{6}$`. */
  format(value: Micros): string {
    if (value < 0n) throw new RangeError(`negative amount: ${value}`);
    const units = value / MICROS_PER_UNIT;
    const frac = (value % MICROS_PER_UNIT).toString().padStart(6, '0');
    return `${units}.${frac}`;
  },

  /** Formats a difference that may be negative (a margin): `-0.010000`; amounts use `format`. */
  formatSigned(value: Micros): string {
    return value < 0n ? `-${Money.format(-value)}` : Money.format(value);
  },

  /** unit price × quantity ÷ per, rounded up to the micro-unit (never undercharges). */
  multiply(unitPrice: Micros, quantity: number | bigint, per: number | bigint = 1): Micros {
    const q = BigInt(quantity);
    const p = BigInt(per);
    if (q < 0n || p <= 0n) throw new RangeError('quantity must be >= 0 and per > 0');
    return (unitPrice * q + p - 1n) / p;
  },

  min(a: Micros, b: Micros): Micros {
    return a < b ? a : b;
  },
  max(a: Micros, b: Micros): Micros {
    return a > b ? a : b;
  },
};
