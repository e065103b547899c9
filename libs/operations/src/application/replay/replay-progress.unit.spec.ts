import { estimateTotal, rateAndEta } from './replay-progress';

describe('replay progress', () => {
  it('computes the rate and the time left', () => {
    expect(rateAndEta(0, 100, 0)).toEqual({ rate: 0, eta: null });
    expect(rateAndEta(500, 1500, 2)).toEqual({ rate: 250, eta: 4 });
    expect(rateAndEta(1500, 1500, 3)).toEqual({ rate: 500, eta: 0 });
    // more done than estimated: nothing left, never negative
    expect(rateAndEta(1600, 1500, 4)).toEqual({ rate: 400, eta: 0 });
  });

  it('estimates the total from dense positions exactly', () => {
    expect(estimateTotal(0, undefined, undefined, -1n)).toBe(0);
    expect(estimateTotal(0, undefined, undefined, 1000n)).toBe(1000);
    expect(estimateTotal(400, 1n, 400n, 1000n)).toBe(1000);
  });

  it('extrapolates from sparse positions', () => {
    // 100 events spread over positions 1000..10900 (every 100): the head at 20900 means ~200
    const estimate = estimateTotal(100, 1000n, 10900n, 20900n);
    expect(estimate).toBeGreaterThanOrEqual(199);
    expect(estimate).toBeLessThanOrEqual(202);
    // never below what is already done
    expect(estimateTotal(300, 1n, 10n, 10n)).toBe(300);
  });
});
