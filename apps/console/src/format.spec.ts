import { formatAmount, formatBytes, formatTime, isoToLocalInput, localInputToIso, sumAmounts } from './format';

describe('amount formatting', () => {
  it('shows an API amount exactly as given, with the yuan sign', () => {
    expect(formatAmount('0.080000')).toBe('¥0.080000');
    expect(formatAmount('123456789.000001')).toBe('¥123456789.000001');
    // no rounding, no float: the six decimals survive whatever their value
    expect(formatAmount('0.000001')).toBe('¥0.000001');
    expect(formatAmount('9007199254740993.999999')).toBe('¥9007199254740993.999999');
  });

  it('shows a missing amount as a dash and anything unexpected unchanged', () => {
    expect(formatAmount(null)).toBe('—');
    expect(formatAmount(undefined)).toBe('—');
    expect(formatAmount('1.5')).toBe('1.5');
  });

  it('sums amounts exactly in micro-units', () => {
    expect(sumAmounts(['0.100000', '0.200000'])).toBe('0.300000'); // 0.1 + 0.2 in floats is 0.30000000000000004
    expect(sumAmounts(['9007199254740993.000001', '0.999999'])).toBe('9007199254740994.000000');
    expect(sumAmounts([null, undefined, '1.000000'])).toBe('1.000000');
    expect(sumAmounts([])).toBe('0.000000');
    expect(() => sumAmounts(['1.5'])).toThrow('not an amount');
  });
});

describe('times and sizes', () => {
  it('shows times in the given zone', () => {
    const iso = '2026-11-25T02:30:00.000Z';
    expect(formatTime(iso, 'Asia/Shanghai')).toContain('10:30:00');
    expect(formatTime(iso, 'UTC')).toContain('2:30:00');
    expect(formatTime(null)).toBe('—');
  });

  it('turns a datetime-local value into an instant and back', () => {
    const iso = localInputToIso('2026-11-25T10:30');
    expect(iso).toBe(new Date(2026, 10, 25, 10, 30).toISOString());
    expect(isoToLocalInput(iso)).toBe('2026-11-25T10:30');
    expect(localInputToIso('')).toBe('');
  });

  it('formats sizes in binary units', () => {
    expect(formatBytes(300 * 1024)).toBe('300 KiB');
    expect(formatBytes(128 * 1024)).toBe('128 KiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(12)).toBe('12 B');
  });
});
