/**
 * Display helpers. Amounts are shown exactly as the API gives them (CNY strings with six
 * decimals), never through floating point; sums use integer micro-units (BigInt).
 */

const AMOUNT = /^\d+\.\d{6}$/;

/** `"12.345600"` → `"¥12.345600"`; anything else is shown as it came, unchanged. */
export function formatAmount(amount: string | null | undefined): string {
  if (amount === null || amount === undefined) return '—';
  return AMOUNT.test(amount) ? `¥${amount}` : amount;
}

/** Exact sum of API amounts (`^\d+\.\d{6}$`), as an amount string with six decimals. */
export function sumAmounts(amounts: readonly (string | null | undefined)[]): string {
  let micros = 0n;
  for (const a of amounts) {
    if (a === null || a === undefined) continue;
    if (!AMOUNT.test(a)) throw new Error(`not an amount: ${a}`);
    const [whole, frac] = a.split('.');
    micros += BigInt(whole) * 1_000_000n + BigInt(frac);
  }
  const whole = micros / 1_000_000n;
  const frac = (micros % 1_000_000n).toString().padStart(6, '0');
  return `${whole}.${frac}`;
}

/** An RFC 3339 time in the browser's zone (or the given one), e.g. "25 Nov 2026, 10:41:07". */
export function formatTime(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium', ...(timeZone ? { timeZone } : {}) }).format(d);
}

/** The browser's zone name, for labels ("times in Europe/Berlin"). */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
}

/** `<input type="datetime-local">` value (browser zone) → RFC 3339 with offset, or '' when empty. */
export function localInputToIso(value: string): string {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

/** RFC 3339 → `<input type="datetime-local">` value in the browser's zone. */
export function isoToLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** 300000 → "293 KiB". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? Math.round(v) : v.toFixed(1).replace(/\.0$/, '')} ${units[i]}`;
}

export const TERMINAL_TASK_STATUSES = ['succeeded', 'failed', 'canceled'] as const;
export const isTerminal = (status: string): boolean => (TERMINAL_TASK_STATUSES as readonly string[]).includes(status);

/** Label text for API enum values: "settled" → "Settled", "not_needed" → "Not needed". */
export function humanize(value: string | null | undefined): string {
  if (!value) return '—';
  const s = value.replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}
