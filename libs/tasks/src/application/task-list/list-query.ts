import { AppError, Money } from '@gensvc/kernel';
import { type Filter } from '@gensvc/event-sourcing';

/** Query of GET /v1/tasks and GET /v1/billing, validated (spec ranges and patterns). */
export interface ListQuery {
  readonly page: number;
  readonly limit: number;
  readonly q?: string;
  readonly status?: string;
  readonly modality?: string;
  readonly settlement_status?: string;
  readonly connection_id?: string;
  /** ISO UTC, inclusive. */
  readonly created_from?: string;
  /** ISO UTC, exclusive. */
  readonly created_before?: string;
  /** Micro-units, inclusive. */
  readonly min_amount?: number;
  readonly max_amount?: number;
}

export const TASK_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'];
export const SETTLEMENT_STATUSES = ['reserved', 'settled', 'released'];
export const MODALITIES = ['text', 'image', 'audio', 'video'];

const PARAMS = ['page', 'limit', 'q', 'status', 'modality', 'settlement_status', 'connection_id', 'created_from', 'created_before', 'min_amount', 'max_amount'];
const INTEGER = /^\d{1,9}$/;
const AMOUNT = /^\d{1,9}(\.\d{1,6})?$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time that names a real instant: the calendar day exists (no February 30,
 * no February 29 outside leap years), hours 0-23, minutes and seconds 0-59, offsets up to
 * 23:59. (Date.parse alone rolls impossible days over into the next month.)
 */
export function isRealDateTime(v: string): boolean {
  const m = DATE_TIME.exec(v);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const offH = m[8] === undefined ? 0 : Number(m[8]);
  const offM = m[9] === undefined ? 0 : Number(m[9]);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 || offH > 23 || offM > 59) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

const bad = (name: string, rule: string): AppError => new AppError('VALIDATION_ERROR', `${name}: ${rule}`);

function text(raw: Record<string, unknown>, name: string): string | undefined {
  const v = raw[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw bad(name, 'must be given once, as a string');
  return v;
}

function integer(raw: Record<string, unknown>, name: string, min: number, max: number, def: number): number {
  const v = text(raw, name);
  if (v === undefined) return def;
  if (!INTEGER.test(v) || Number(v) < min || Number(v) > max) throw bad(name, `must be an integer from ${min} to ${max}`);
  return Number(v);
}

function bounded(raw: Record<string, unknown>, name: string, max: number, allowed?: readonly string[]): string | undefined {
  const v = text(raw, name);
  if (v === undefined) return undefined;
  if (v.length > max) throw bad(name, `must be at most ${max} characters`);
  if (allowed && !allowed.includes(v)) throw bad(name, `must be one of ${allowed.join(', ')}`);
  return v;
}

function dateTime(raw: Record<string, unknown>, name: string): string | undefined {
  const given = text(raw, name);
  if (given === undefined) return undefined;
  // An unencoded '+' of an offset arrives as a space in a query string: read it as '+'.
  const v = given.replace(/ (\d{2}:\d{2})$/, '+$1');
  const ms = isRealDateTime(v) ? Date.parse(v.toUpperCase()) : NaN;
  if (Number.isNaN(ms)) throw bad(name, 'must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T00:00:00Z');
  return new Date(ms).toISOString();
}

function amount(raw: Record<string, unknown>, name: string): number | undefined {
  const v = text(raw, name);
  if (v === undefined) return undefined;
  if (!AMOUNT.test(v)) throw bad(name, 'must match ^\\d{1,9}(\\.\\d{1,6})?$ (a CNY amount)');
  return Number(Money.parse(v));
}

export function parseListQuery(raw: Record<string, unknown>): ListQuery {
  const unknown = Object.keys(raw).filter((k) => !PARAMS.includes(k));
  if (unknown.length) throw bad(unknown[0], `unknown query parameter (allowed: ${PARAMS.join(', ')})`);
  return {
    page: integer(raw, 'page', 1, 100_000, 1),
    limit: integer(raw, 'limit', 1, 100, 30),
    q: bounded(raw, 'q', 200),
    status: bounded(raw, 'status', 40, TASK_STATUSES),
    modality: bounded(raw, 'modality', 40, MODALITIES),
    settlement_status: bounded(raw, 'settlement_status', 40, SETTLEMENT_STATUSES),
    connection_id: bounded(raw, 'connection_id', 100),
    created_from: dateTime(raw, 'created_from'),
    created_before: dateTime(raw, 'created_before'),
    min_amount: amount(raw, 'min_amount'),
    max_amount: amount(raw, 'max_amount'),
  };
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The read-store filter of a list query for one account. `idFields` are matched by q besides the title. */
export function listFilter(accountId: string, q: ListQuery, idFields: readonly string[]): Filter {
  const f: Record<string, unknown> = { account_id: accountId };
  if (q.status) f.status = q.status;
  if (q.modality) f.modality = q.modality;
  if (q.settlement_status) f.settlement_status = q.settlement_status;
  if (q.connection_id !== undefined) f.connection_id = q.connection_id;
  if (q.created_from || q.created_before) {
    f.created_at = { ...(q.created_from ? { $gte: q.created_from } : {}), ...(q.created_before ? { $lt: q.created_before } : {}) };
  }
  if (q.min_amount !== undefined || q.max_amount !== undefined) {
    // Unsettled tasks have net_charged null: excluded by $ne null.
    f.net_charged = { $ne: null, ...(q.min_amount !== undefined ? { $gte: q.min_amount } : {}), ...(q.max_amount !== undefined ? { $lte: q.max_amount } : {}) };
  }
  if (q.q) {
    const pattern = escapeRegex(q.q);
    f.$or = [{ title: { $regex: pattern, $options: 'i' } }, ...idFields.map((field) => ({ [field]: { $regex: pattern, $options: 'i' } }))];
  }
  return f;
}
