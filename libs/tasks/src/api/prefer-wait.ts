/** The longest `Prefer: wait` honoured, in seconds (CONTRACT §16). */
export const MAX_WAIT_SECONDS = 60;

/**
 * The `wait` preference of a `Prefer` header (RFC 7240) in whole seconds, when it is valid
 * (1 to 60); otherwise undefined, and the header is ignored as RFC 7240 §2 asks. Preferences
 * are comma-separated, each `token [= word] *(; parameter)`, a word a token or a quoted string;
 * names are case-insensitive; only the first `wait` counts (§2). Several `Prefer` headers
 * arrive joined by commas, which reads the same.
 */
export function preferredWait(header: string | string[] | undefined): number | undefined {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return undefined;
  for (const preference of splitOutsideQuotes(text, ',')) {
    const [head] = splitOutsideQuotes(preference, ';');
    const eq = head.indexOf('=');
    const name = (eq < 0 ? head : head.slice(0, eq)).trim().toLowerCase();
    if (name !== 'wait') continue;
    if (eq < 0) return undefined;
    let value = head.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (!/^\d{1,3}$/.test(value)) return undefined;
    const seconds = Number(value);
    return seconds >= 1 && seconds <= MAX_WAIT_SECONDS ? seconds : undefined;
  }
  return undefined;
}

/** Splits on `separator` where it is not inside a quoted string (with backslash escapes). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '\\' && i + 1 < text.length) {
      current += c + text[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}
