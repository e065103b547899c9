import type { ByteRange } from '@gensvc/blob-store';

/**
 * What a GET or HEAD of a file answers, from its size, validators and the request's
 * `Range` / `If-Range` (RFC 9110 §14): the whole file, one byte range (206), or 416.
 * A Range of another unit (or no unit at all) is ignored, as RFC 9110 §14.2 requires: the
 * whole file. A `bytes` Range with several ranges or a malformed or unsatisfiable one is 416.
 */
export type RangeDecision = { kind: 'full' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

export function decideRange(
  size: number,
  headers: { range?: string; ifRange?: string },
  validators: { etag: string; lastModified: Date },
): RangeDecision {
  const header = headers.range;
  if (header === undefined) return { kind: 'full' };
  if (!/^\s*bytes(?![!#$%&'*+.^_`|~0-9A-Za-z-])/i.test(header)) return { kind: 'full' };
  if (headers.ifRange !== undefined && !ifRangeHolds(headers.ifRange, validators)) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'unsatisfiable' };
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (!Number.isSafeInteger(suffix) || suffix === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start >= size || Number(m[2] || size) < start) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end } };
}

/** If-Range holds when it names the current strong ETag or the exact Last-Modified date. */
function ifRangeHolds(value: string, v: { etag: string; lastModified: Date }): boolean {
  const trimmed = value.trim();
  if (trimmed.startsWith('"') || trimmed.startsWith('W/')) return trimmed === v.etag;
  const date = Date.parse(trimmed);
  return !Number.isNaN(date) && Math.floor(date / 1000) === Math.floor(v.lastModified.getTime() / 1000);
}

/** If-None-Match: true when one of the listed tags (or `*`) matches, weakly compared. */
export function noneMatchHits(value: string | undefined, etag: string): boolean {
  if (value === undefined) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return value.split(',').some((t) => t.trim() === '*' || bare(t) === bare(etag));
}
