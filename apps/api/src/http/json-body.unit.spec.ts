import fc from 'fast-check';
import { MAX_JSON_DEPTH, forbiddenKeyPath, isJsonMediaType, jsonDepth } from './json-body';

/** The nesting depth of a parsed value, computed from the value (the reference). */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + children.reduce<number>((m, c) => Math.max(m, depthOf(c)), 0);
}

function hasForbiddenKey(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(hasForbiddenKey);
  return Object.keys(v).some((k) => k === '__proto__' || k === 'constructor' || hasForbiddenKey((v as Record<string, unknown>)[k]));
}

const bytes = (s: string) => Buffer.from(s, 'utf8');
/** Any JSON text: values with strings full of brackets, quotes and escapes, spaced or not. */
const jsonText = fc
  .tuple(fc.jsonValue({ maxDepth: 12 }), fc.constantFrom(undefined, 1, 2, '\t'))
  .map(([v, space]) => ({ value: JSON.parse(JSON.stringify(v)) as unknown, text: JSON.stringify(v, null, space) }));

describe('JSON body checks', () => {
  it('measures the nesting depth of any JSON text exactly, brackets inside strings being text', () => {
    fc.assert(fc.property(jsonText, ({ value, text }) => expect(jsonDepth(bytes(text))).toBe(depthOf(value))));
  });

  it('stops at the limit: min(depth, limit + 1)', () => {
    fc.assert(
      fc.property(jsonText, fc.integer({ min: 0, max: 14 }), ({ value, text }, limit) => {
        expect(jsonDepth(bytes(text), limit)).toBe(Math.min(depthOf(value), limit + 1));
      }),
    );
  });

  it('refuses exactly the bodies deeper than the bound, however they are built', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 * MAX_JSON_DEPTH }), fc.array(fc.constantFrom('[', '{"a":'), { minLength: 1 }), (depth, openers) => {
        let text = '1';
        for (let i = 0; i < depth; i++) {
          const o = openers[i % openers.length];
          text = o === '[' ? `[${text}]` : `{"a\\"[{":${text}}`;
        }
        expect(jsonDepth(bytes(text), MAX_JSON_DEPTH) > MAX_JSON_DEPTH).toBe(depth > MAX_JSON_DEPTH);
      }),
      { numRuns: 200 },
    );
  });

  it('finds a __proto__ or constructor key at any depth, and nothing in bodies without one', () => {
    fc.assert(fc.property(jsonText, ({ value }) => expect(forbiddenKeyPath(value) !== null).toBe(hasForbiddenKey(value))));
    const key = fc.constantFrom('__proto__', 'constructor');
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), key, fc.array(fc.constantFrom('a', 'b'), { maxLength: 6 }), (v, k, path) => {
        // JSON.parse makes "__proto__" an own property, as the body parser does.
        let text = `{"${k}":${JSON.stringify(v)}}`;
        for (const p of path) text = `{"${p}":${text}}`;
        const found = forbiddenKeyPath(JSON.parse(text));
        expect(found).toBe([...path.slice().reverse(), k].join('.'));
      }),
    );
  });

  it('takes application/json and application/*+json with any parameters, and no other type', () => {
    const params = fc.array(fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[A-Za-z0-9-]{0,8}$/)).map(([k, v]) => `; ${k}=${v}`), { maxLength: 3 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.constantFrom('application/json', 'APPLICATION/JSON', 'application/problem+json', 'application/vnd.api+json'), params, (type, p) => expect(isJsonMediaType(`${type}${p}`)).toBe(true)),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,10}\/[a-z.+-]{1,12}$/), params, (type, p) => {
        const t = type.toLowerCase();
        const json = t === 'application/json' || (/^application\/[a-z0-9.!#$&^_-]+\+json$/.test(t));
        expect(isJsonMediaType(`${type}${p}`)).toBe(json);
      }),
    );
    for (const t of [undefined, '', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'text/json']) expect(isJsonMediaType(t)).toBe(false);
  });
});
