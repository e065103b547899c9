import { AppError, hasControlCharacter } from '@gensvc/kernel';

export const MAX_NAME_CHARS = 200;

/**
 * Checks a file name (prepare `name`, import `name`, the decoded `X-Filename`): 1 to 200
 * characters (code points), no control characters, no path separators, not `.` or `..`.
 * Returns the name unchanged.
 */
export function checkFileName(name: unknown, field: string): string {
  if (typeof name !== 'string') throw new AppError('VALIDATION_ERROR', `${field}: must be a string`);
  const chars = [...name].length;
  if (chars < 1 || chars > MAX_NAME_CHARS) throw new AppError('VALIDATION_ERROR', `${field}: must be 1 to ${MAX_NAME_CHARS} characters`);
  // C0, DEL, C1, line separators and bidi controls (the shared rule): a name that would lie about itself in a download dialog.
  if (hasControlCharacter(name)) throw new AppError('VALIDATION_ERROR', `${field}: must not contain control characters`);
  if (/[\/\\]/.test(name)) throw new AppError('VALIDATION_ERROR', `${field}: must not contain path separators`);
  if (name === '.' || name === '..') throw new AppError('VALIDATION_ERROR', `${field}: is not a file name`);
  if (name.trim() === '') throw new AppError('VALIDATION_ERROR', `${field}: must not be blank`);
  return name;
}

/**
 * The header's text. Node hands header bytes over as Latin-1 (one character per byte), so a
 * name sent as raw UTF-8 (`café` as 63 61 66 C3 A9) arrives as `cafÃ©`: bytes that form valid
 * UTF-8 are read as UTF-8, anything else stays Latin-1 (RFC 9110's obs-text).
 */
function headerText(header: string): string {
  if (!/[^\x00-\x7f]/.test(header)) return header;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(header, 'latin1'));
  } catch {
    return header;
  }
}

/**
 * Decodes the `X-Filename` header and checks the result: URL-encoded UTF-8 (the documented
 * form), or a name sent as raw UTF-8, taken as it is.
 */
export function decodeFileNameHeader(header: string | string[] | undefined): string {
  if (header === undefined) throw new AppError('VALIDATION_ERROR', 'X-Filename: header is required (URL-encoded file name)');
  if (Array.isArray(header)) throw new AppError('VALIDATION_ERROR', 'X-Filename: send the header once');
  const raw = headerText(header);
  if (raw !== header) return checkFileName(raw, 'X-Filename');
  let decoded: string;
  try {
    decoded = decodeURIComponent(header);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'X-Filename: is not valid URL encoding of UTF-8');
  }
  return checkFileName(decoded, 'X-Filename');
}

/**
 * `Content-Disposition` per RFC 6266 / RFC 8187: an ASCII `filename` fallback (non-ASCII and
 * quoting characters replaced) plus `filename*` with the exact UTF-8 name.
 */
export function contentDisposition(type: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
