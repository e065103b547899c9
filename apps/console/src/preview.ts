/** File previews: what kind, and how text and JSON are read (at most 128 KiB, a Range request). */

export const PREVIEW_LIMIT = 128 * 1024;

export type PreviewKind = 'image' | 'audio' | 'video' | 'json' | 'text' | 'none';

export function previewKind(mime: string): PreviewKind {
  const m = mime.toLowerCase().split(';')[0].trim();
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('audio/')) return 'audio';
  if (m.startsWith('video/')) return 'video';
  if (m === 'application/json' || m.endsWith('+json')) return 'json';
  if (m.startsWith('text/')) return 'text';
  return 'none';
}

export interface TextPreview {
  /** The text read (the first 128 KiB at most, cut at a whole UTF-8 character). */
  readonly text: string;
  /** Bytes received. */
  readonly bytes: number;
  /** Whether the file is longer than what was read. */
  readonly truncated: boolean;
  /** The file's full size when the server said (Content-Range or Content-Length). */
  readonly total: number | null;
}

/** Reads the first 128 KiB of a signed link with `Range: bytes=0-131071`. */
export async function readTextPreview(url: string, signal?: AbortSignal): Promise<TextPreview> {
  const res = await fetch(url, { headers: { Range: `bytes=0-${PREVIEW_LIMIT - 1}` }, signal, cache: 'no-store' });
  if (res.status !== 206 && res.status !== 200) throw new Error(`the preview could not be read (HTTP ${res.status}, request ${res.headers.get('X-Request-Id') ?? 'unknown'})`);
  let total: number | null = null;
  const range = res.headers.get('Content-Range');
  const m = range ? /\/(\d+)$/.exec(range) : null;
  if (m) total = Number(m[1]);
  else if (res.status === 200 && res.headers.get('Content-Length')) total = Number(res.headers.get('Content-Length'));
  // Never keep more than the limit, whatever the server sent.
  const buf = new Uint8Array(await res.arrayBuffer()).subarray(0, PREVIEW_LIMIT);
  const truncated = total !== null ? total > buf.length : buf.length >= PREVIEW_LIMIT;
  // stream: true leaves an incomplete trailing character out instead of a replacement sign.
  const text = new TextDecoder('utf-8').decode(buf, { stream: truncated });
  return { text, bytes: buf.length, truncated, total };
}

/**
 * Pretty-prints JSON text that may be cut off (a preview of the first 128 KiB): indents by
 * structure, keeps strings as they are, and never needs the whole document. Whole documents
 * that parse are printed by JSON.stringify.
 */
export function prettyJson(text: string, truncated: boolean): string {
  if (!truncated) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      /* fall through to the tolerant printer */
    }
  }
  let out = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  const newline = () => '\n' + '  '.repeat(Math.max(0, depth));
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j])) j++;
      if (text[j] === close) {
        out += c + close;
        i = j;
        continue;
      }
      depth++;
      out += c + newline();
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += ',' + newline();
    } else if (c === ':') {
      out += ': ';
    } else {
      out += c;
    }
  }
  return out;
}
