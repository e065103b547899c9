import fc from 'fast-check';
import { AppError } from './errors';
import { CONTROL_CHARACTER, checkPlainText, hasControlCharacter, withoutControlCharacters } from './text';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));
/** Every character the rule refuses (CONTRACT §17). */
const REFUSED = [...range(0x00, 0x1f), '\u007f', ...range(0x80, 0x9f), '\u2028', '\u2029', ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)];

describe('titles, descriptions and names: control characters', () => {
  it.each(REFUSED.map((c) => [`U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, c]))('refuses %s anywhere in the text with VALIDATION_ERROR naming the field', (_name, c) => {
    for (const text of [`${c}`, `a${c}`, `${c}b`, `Report ${c} 2026`]) {
      expect(hasControlCharacter(text)).toBe(true);
      expect(() => checkPlainText(text, 'title')).toThrow(AppError);
      expect(() => checkPlainText(text, 'title')).toThrow(/^title: /);
    }
  });

  it('accepts any text without them (letters of every script, emoji, marks, joiners), unchanged', () => {
    const allowed = fc.string({ unit: 'grapheme', maxLength: 60 }).filter((s) => !CONTROL_CHARACTER.test(s));
    fc.assert(
      fc.property(allowed, (s) => {
        expect(checkPlainText(s, 'description')).toBe(s);
        expect(withoutControlCharacters(s)).toBe(s);
      }),
    );
    expect(checkPlainText('Café 日本語 👩‍💻 Ünïcödé (ok) – “quotes”', 'name')).toBe('Café 日本語 👩‍💻 Ünïcödé (ok) – “quotes”');
  });

  it('drops every refused character and nothing else', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...REFUSED), fc.string({ unit: 'grapheme', maxLength: 3 }))), (parts) => {
        const cleaned = withoutControlCharacters(parts.join(''));
        expect(hasControlCharacter(cleaned)).toBe(false);
        expect(cleaned).toBe(parts.map((p) => [...p].filter((c) => !REFUSED.includes(c)).join('')).join(''));
      }),
    );
  });
});
