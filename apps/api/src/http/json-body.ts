/**
 * Checks of JSON request bodies that the parser itself does not make (pure functions, so
 * properties can be tested over any input).
 */

/** The deepest nesting a JSON body may have; deeper bodies are refused before parsing. */
export const MAX_JSON_DEPTH = 400;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The nesting depth of JSON text (objects and arrays; a scalar is 0), counted over the raw
 * bytes without parsing: brackets inside strings are text. Stops counting as soon as the
 * depth passes `limit` and returns `limit + 1`, so a hostile body costs one linear scan at most.
 * Text that is not JSON gives some number; the parser refuses it afterwards anyway.
 */
export function jsonDepth(bytes: Uint8Array, limit = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return limit + 1;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return max;
}

/** Names an object key may not have anywhere in a body: they reach prototypes, never data. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/**
 * The path of the first forbidden key in a parsed body (e.g. `__proto__` or
 * `input.constructor`), or null. Iterative, so depth never overflows the stack.
 */
export function forbiddenKeyPath(value: unknown): string | null {
  const stack: Array<{ v: unknown; path: string }> = [{ v: value, path: '' }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]` });
      continue;
    }
    const keys = Object.keys(v);
    for (const k of keys) if (FORBIDDEN_KEYS.has(k)) return path ? `${path}.${k}` : k;
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ v: (v as Record<string, unknown>)[keys[i]], path: path ? `${path}.${keys[i]}` : keys[i] });
  }
  return null;
}

/** Whether a media type (of a Content-Type header) is JSON: `application/json` or `application/*+json`. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}
