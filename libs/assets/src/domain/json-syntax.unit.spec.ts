import fc from 'fast-check';
import { JsonSyntaxChecker } from './json-syntax';

function check(text: string, pieces = 1): string | null {
  const c = new JsonSyntaxChecker();
  const size = Math.max(1, Math.ceil(text.length / pieces));
  for (let i = 0; i < text.length; i += size) {
    const err = c.push(text.slice(i, i + size));
    if (err) return err;
  }
  return c.end();
}

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('JsonSyntaxChecker', () => {
  it.each([
    '{}',
    '[]',
    '0',
    '-0.5e+10',
    '"a\\u00e9\\n"',
    ' {"a": [1, 2.5, true, false, null, {"b": "c"}], "d": {}} ',
    '[[[[[]]]]]',
    '123',
    '"👋 Grüße"',
  ])('accepts %s', (text) => {
    expect(check(text)).toBeNull();
    expect(check(text, text.length)).toBeNull();
  });

  it.each([
    '',
    '   ',
    '{',
    '{"a"}',
    '{"a":}',
    '{"a":1,}',
    '[1,]',
    '[1 2]',
    '01',
    '1.',
    '.5',
    '-',
    '1e',
    'tru',
    'nul',
    'True',
    '"unterminated',
    '"bad \\x escape"',
    '"\\u12"',
    '"tab\there"',
    '{} {}',
    '[}',
    '{]',
    "{'a': 1}",
    'NaN',
    '{"a":1}}',
  ])('refuses %j', (text) => {
    expect(check(text)).not.toBeNull();
    expect(check(text, Math.max(1, text.length))).not.toBeNull();
  });

  it('agrees with JSON.parse on generated documents, however they are split', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 20 }), (value, pieces) => {
        const text = JSON.stringify(value, null, pieces % 3);
        expect(check(text, pieces)).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with JSON.parse on mutated documents', () => {
    const alphabet = ['{', '}', '[', ']', ',', ':', '"', '\\', '0', '1', '-', '.', 'e', 't', 'n', ' ', 'a', 'u'];
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.constantFrom(...alphabet), fc.integer({ min: 1, max: 7 }), (value, at, ch, pieces) => {
        const base = JSON.stringify(value);
        const pos = base.length ? at % base.length : 0;
        const mutated = base.slice(0, pos) + ch + base.slice(pos + 1);
        expect(check(mutated, pieces) === null).toBe(parses(mutated));
      }),
      { numRuns: 2000 },
    );
  });

  it('handles deep nesting without recursion', () => {
    const depth = 100_000;
    expect(check('['.repeat(depth) + ']'.repeat(depth), 50)).toBeNull();
    expect(check('['.repeat(depth) + ']'.repeat(depth - 1), 50)).not.toBeNull();
  });
});
