import { hasPrefix, newId, newSecret } from './ids';

describe('ids', () => {
  it('newId has the type prefix and a lowercase ULID', () => {
    const id = newId('task');
    expect(id).toMatch(/^task_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(hasPrefix(id, 'task')).toBe(true);
    expect(hasPrefix(id, 'qt')).toBe(false);
  });

  it('ids are unique and sort by creation time, even within one millisecond', () => {
    const ids = Array.from({ length: 2000 }, () => newId('evt'));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("the random part uses the whole alphabet evenly (ids of distinct milliseconds)", () => {
    const counts = new Map<string, number>();
    let last = '';
    for (let ms = 0; counts.size < 32 || ms < 400; ms++) {
      // a new millisecond draws a fresh random part (within one it only increments)
      const id = newId('evt');
      if (id.slice(4, 14) === last) continue;
      last = id.slice(4, 14);
      for (const c of id.slice(14)) counts.set(c, (counts.get(c) ?? 0) + 1);
      const until = Date.now() + 1;
      while (Date.now() < until) {
        /* next millisecond */
      }
    }
    expect(counts.size).toBe(32);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    // 16 random letters per id over 32 letters: each letter's share stays near 1/32
    for (const n of counts.values()) expect(n / total).toBeGreaterThan(0.5 / 32);
  });

  it('hasPrefix refuses non-strings, missing separators and overlong ids', () => {
    expect(hasPrefix(undefined as unknown as string, 'acc')).toBe(false);
    expect(hasPrefix('acc', 'acc')).toBe(false);
    expect(hasPrefix('account_1', 'acc')).toBe(false);
    expect(hasPrefix(`acc_${'x'.repeat(100)}`, 'acc')).toBe(false);
  });

  it('newSecret is prefixed, URL-safe and high-entropy', () => {
    const a = newSecret('sk_');
    const b = newSecret('sk_');
    expect(a).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(newSecret('t_', 16)).toMatch(/^t_[A-Za-z0-9_-]{22}$/);
  });
});
