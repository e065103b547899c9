import { escapeControl, human, safeJson } from './output';

/** What the API may return in a title, a description or a name it accepted before (or a hostile server). */
const HOSTILE = '\u001b[2J\u001b]0;owned\u0007 inv\u202Efdp.exe \u009b31m \u0000 del\u007f \u2066x\u2069';

/** Whether the text holds a raw character a terminal would act on. */
const drivesTerminal = (s: string) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u.test(s);

describe('CLI output: prints what the API returns without letting it drive the terminal', () => {
  it('escapes every control character visibly and leaves other text as it is', () => {
    expect(escapeControl('a\u001bb')).toBe('a\\x1bb');
    expect(escapeControl('x\u202Ey')).toBe('x\\u202ey');
    expect(escapeControl('\u009b\u0000\u007f')).toBe('\\x9b\\x00\\x7f');
    expect(escapeControl('Café 日本語 👩‍💻 – ok')).toBe('Café 日本語 👩‍💻 – ok');
  });

  it('a task table (gensvc tasks list) carries no raw control character, and each row stays one line', () => {
    const out = human(
      { data: [{ id: 'task_1', status: 'succeeded', model: 'text-writer-lite', title: HOSTILE, max_amount: '0.010000', charged_amount: null, created_at: '2026-01-01T00:00:00Z' }], page: 1, has_more: false },
      'tasks',
    );
    expect(drivesTerminal(out)).toBe(false);
    expect(out.split('\n')).toHaveLength(2);
    expect(out).toContain('\\x1b[2J');
    expect(out).toContain('\\u202e');
  });

  it('key/value output (one task, one webhook endpoint) and plain values are escaped too', () => {
    expect(drivesTerminal(human({ id: 'whe_1', description: HOSTILE, events: [HOSTILE] }))).toBe(false);
    expect(drivesTerminal(human(HOSTILE))).toBe(false);
    expect(drivesTerminal(human({ data: [HOSTILE] }))).toBe(false);
  });

  it('JSON output parses to the same value and holds no raw control character (JSON.stringify leaves C1 and bidi controls raw)', () => {
    const value = { title: HOSTILE, nested: [{ name: HOSTILE }] };
    expect(drivesTerminal(JSON.stringify(value))).toBe(true);
    for (const text of [safeJson(value), safeJson(value, 2)]) {
      expect(drivesTerminal(text.replace(/\n/g, ''))).toBe(false);
      expect(JSON.parse(text)).toEqual(value);
    }
  });
});
