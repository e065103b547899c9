import { AppError } from '@gensvc/kernel';

/** The media types the service accepts for uploads (spec: direct upload Content-Types). */
export const ACCEPTED_MIMES = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'video/mp4',
  'audio/mpeg',
  'audio/wav',
  'application/json',
  'text/plain',
] as const;
export type AcceptedMime = (typeof ACCEPTED_MIMES)[number];

/** Types without a binary signature: checked as UTF-8 text (and JSON syntax). */
export const TEXT_MIMES: readonly AcceptedMime[] = ['text/plain', 'application/json'];

export const isAcceptedMime = (m: string): m is AcceptedMime => (ACCEPTED_MIMES as readonly string[]).includes(m);
export const isTextMime = (m: string): boolean => (TEXT_MIMES as readonly string[]).includes(m);

export interface ParsedContentType {
  readonly essence: string;
  readonly params: Readonly<Record<string, string>>;
}

/** Parses `type/subtype; k=v; ...` (RFC 9110 media type); null when malformed. */
export function parseContentType(header: string | undefined): ParsedContentType | null {
  if (typeof header !== 'string') return null;
  const [head, ...rest] = header.split(';');
  const essence = head.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(essence)) return null;
  const params: Record<string, string> = {};
  for (const p of rest) {
    if (!p.trim()) continue;
    const eq = p.indexOf('=');
    if (eq < 1) return null;
    const key = p.slice(0, eq).trim().toLowerCase();
    let value = p.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    params[key] = value;
  }
  return { essence, params };
}

/**
 * The accepted media type a request's Content-Type names, or UNSUPPORTED_MEDIA_TYPE.
 * Parameters are ignored except `charset`, which must be UTF-8 when present.
 */
export function acceptedContentType(header: string | undefined): AcceptedMime {
  const parsed = parseContentType(header);
  if (!parsed) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type is required and must be one of ${ACCEPTED_MIMES.join(', ')}`);
  if (!isAcceptedMime(parsed.essence)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${parsed.essence} is not accepted; use one of ${ACCEPTED_MIMES.join(', ')}`);
  }
  const charset = parsed.params.charset;
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type charset ${charset} is not accepted; files are UTF-8`);
  }
  return parsed.essence;
}

/** The Content-Type a stored file is served with. */
export function servedContentType(mime: string): string {
  return isTextMime(mime) ? `${mime}; charset=utf-8` : mime;
}
