/**
 * What a command prints on stdout: one JSON object for machines (`--json`, or whenever stdout
 * is not a terminal), tables and key/value lines for people on a terminal. Whatever the API
 * returns is printed, never obeyed: control characters in it are escaped.
 */
export interface OutputMode {
  json: boolean;
  pretty: boolean;
}

export function outputMode(argv: string[]): OutputMode {
  return { json: argv.includes('--json') || process.stdout.isTTY !== true, pretty: argv.includes('--pretty') };
}

const MAX_CELL = 48;

/**
 * Characters that would let text from the API drive the terminal or reorder what it shows:
 * C0 controls (ESC starts escape sequences), DEL, C1 controls (U+009B is a CSI on its own),
 * the line and paragraph separators and the bidirectional embeddings, overrides and isolates.
 */
const TERMINAL_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** What JSON.stringify leaves raw inside strings (it escapes C0 itself; raw C0 outside strings is only the indentation's newlines). */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** `\x1b`, `\u202e`: a control character spelled out, so it shows instead of acting. */
const spelled = (c: string): string => {
  const n = c.codePointAt(0)!;
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
};

/** Text from the API as it may reach a terminal: every control character escaped, the rest unchanged. */
export function escapeControl(text: string): string {
  return text.replace(TERMINAL_CONTROL, spelled);
}

/**
 * JSON text whose strings hold no raw control character either: JSON.stringify already escapes
 * C0, this escapes DEL, C1, the separators and the bidirectional controls the same way
 * (`\u009b`), so the output parses to the same value and shows safely on a terminal.
 */
export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(RAW_IN_JSON, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  const flat = escapeControl(s.replace(/[\t\n\r ]+/g, ' '));
  return [...flat].length > MAX_CELL ? `${[...flat].slice(0, MAX_CELL - 1).join('')}…` : flat;
}

/** An aligned table with a header row. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

/** Key/value lines of an object (nested objects as compact JSON). */
function keyValues(o: Record<string, unknown>): string {
  const keys = Object.keys(o);
  const width = Math.max(...keys.map((k) => k.length));
  return keys.map((k) => escapeControl(`${k.padEnd(width)}  ${o[k] === null || o[k] === undefined ? '-' : typeof o[k] === 'object' ? JSON.stringify(o[k]) : String(o[k])}`)).join('\n');
}

/** Columns shown for the items of a list, by command. */
export const COLUMNS: Record<string, string[]> = {
  models: ['id', 'name', 'modality', 'capabilities', 'available', 'price'],
  prices: ['model', 'capability', 'unit', 'unit_price', 'pricing_mode', 'price_version'],
  tasks: ['id', 'status', 'model', 'title', 'max_amount', 'charged_amount', 'created_at'],
  billing: ['id', 'task_id', 'model', 'charged_amount', 'released_amount', 'settlement_status', 'created_at'],
  voices: ['id', 'name', 'status', 'created_at'],
  assets: ['id', 'name', 'mime', 'size', 'source', 'task_id', 'created_at'],
  webhooks: ['id', 'url', 'events', 'status', 'description', 'created_at'],
  deliveries: ['id', 'event_type', 'status', 'attempts', 'last_attempt', 'next_attempt_at', 'message_id'],
};

type Row = Record<string, unknown>;

/** How an item of a list shows in a table, by command, when it is not its own fields. */
const ROWS: Record<string, (item: Row) => Row> = {
  // The lowest price and its unit ("from" when prices differ by parameters or capability).
  models: (m) => {
    const prices = (Array.isArray(m.prices) ? (m.prices as Row[]) : []).filter((p) => typeof p.unit_price === 'string');
    if (!prices.length) return { ...m, price: null };
    const low = prices.reduce((a, b) => (Number(b.unit_price) < Number(a.unit_price) ? b : a));
    const from = prices.some((p) => p.unit_price !== low.unit_price || p.unit !== low.unit) ? 'from ' : '';
    return { ...m, price: `${from}${String(low.unit_price)} ${String(low.currency ?? 'CNY')}/${String(low.unit)}` };
  },
  deliveries: (d) => {
    const attempts = Array.isArray(d.attempts) ? (d.attempts as Row[]) : [];
    const last = attempts[attempts.length - 1];
    return { ...d, attempts: attempts.length, last_attempt: last ? (last.status_code ?? last.error) : null };
  },
};

function isList(v: unknown): v is { data: Record<string, unknown>[]; page?: number; has_more?: boolean } {
  return typeof v === 'object' && v !== null && Array.isArray((v as { data?: unknown }).data);
}

/** The human form of a result. */
export function human(result: unknown, kind?: string): string {
  if (isList(result)) {
    if (result.data.length === 0) return '(none)';
    const first = result.data[0];
    const columns = (kind && COLUMNS[kind]) || (typeof first === 'object' && first !== null ? Object.keys(first).filter((k) => typeof first[k] !== 'object' || Array.isArray(first[k])).slice(0, 7) : []);
    const rows = result.data.map((d) => (typeof d === 'object' && d !== null ? (kind && ROWS[kind] ? ROWS[kind](d) : d) : { value: d }));
    const more = result.has_more ? `\npage ${result.page}; more with --page ${(result.page ?? 1) + 1}` : '';
    return `${table(rows, columns.length ? columns : ['value'])}${more}`;
  }
  if (typeof result === 'object' && result !== null) {
    const o = result as Record<string, unknown>;
    // `run`: the task, then the files it wrote.
    if (typeof o.task === 'object' && o.task !== null && Array.isArray(o.files)) {
      const files = o.files as Record<string, unknown>[];
      return `${keyValues(o.task as Record<string, unknown>)}${files.length ? `\n\n${table(files, ['asset_id', 'path', 'size', 'checksum'])}` : ''}`;
    }
    return keyValues(o);
  }
  return escapeControl(String(result));
}

export function print(result: unknown, mode: OutputMode, kind?: string): void {
  process.stdout.write(`${mode.json ? safeJson(result, mode.pretty ? 2 : undefined) : human(result, kind)}\n`);
}

/** An error: the error object as JSON on stderr in JSON mode, a readable line otherwise. */
export function printError(error: { code: string; message: string; request_id?: string }, mode: OutputMode): void {
  if (mode.json) process.stderr.write(`${safeJson({ error })}\n`);
  else process.stderr.write(`${escapeControl(`error: ${error.code}: ${error.message}${error.request_id ? ` (request ${error.request_id})` : ''}`)}\n`);
}
