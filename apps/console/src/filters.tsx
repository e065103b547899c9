import { useEffect, useState } from 'preact/hooks';
import { isoToLocalInput, localInputToIso, browserZone } from './format';

/** The task and billing list filters of the spec, kept in the page address. */
export const FILTER_KEYS = ['q', 'status', 'modality', 'settlement_status', 'connection_id', 'created_from', 'created_before', 'min_amount', 'max_amount', 'limit'] as const;
export type Filters = Partial<Record<(typeof FILTER_KEYS)[number] | 'page', string>>;

export const TASK_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'];
export const MODALITIES = ['text', 'image', 'audio', 'video'];
export const SETTLEMENT_STATUSES = ['reserved', 'settled', 'released'];

export function filtersFrom(query: Record<string, string>): Filters {
  const f: Filters = {};
  for (const k of [...FILTER_KEYS, 'page'] as const) if (query[k]) f[k] = query[k];
  return f;
}

export function hrefWith(base: string, f: Filters): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) p.set(k, v);
  const s = p.toString();
  return s ? `${base}?${s}` : base;
}

export function FilterForm({ value, onApply, label }: { value: Filters; onApply: (f: Filters) => void; label: string }) {
  const [f, setF] = useState<Filters>(value);
  useEffect(() => setF(value), [JSON.stringify(value)]);
  const set = (k: keyof Filters, v: string) => setF({ ...f, [k]: v });
  const submit = (e: Event) => {
    e.preventDefault();
    const { page: _page, ...rest } = f;
    onApply(rest);
  };
  const select = (k: keyof Filters, text: string, options: string[]) => (
    <div class="field">
      <label for={`f-${k}`}>{text}</label>
      <select id={`f-${k}`} value={f[k] ?? ''} onChange={(e) => set(k, e.currentTarget.value)}>
        <option value="">Any</option>
        {options.map((o) => <option key={o} value={o}>{o.replace(/_/g, ' ')}</option>)}
      </select>
    </div>
  );
  return (
    <form class="filters card" onSubmit={submit} aria-label={label} role="search">
      <div class="field field-wide">
        <label for="f-q">Search</label>
        <input id="f-q" type="search" maxLength={200} placeholder="Title, task id, model or quote id" value={f.q ?? ''} onInput={(e) => set('q', e.currentTarget.value)} />
      </div>
      {select('status', 'Status', TASK_STATUSES)}
      {select('modality', 'Modality', MODALITIES)}
      {select('settlement_status', 'Settlement', SETTLEMENT_STATUSES)}
      <div class="field">
        <label for="f-connection_id">Connection</label>
        <input id="f-connection_id" type="text" maxLength={100} placeholder="key_… or grant_…" value={f.connection_id ?? ''} onInput={(e) => set('connection_id', e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="f-created_from">Created from</label>
        <input id="f-created_from" type="datetime-local" value={isoToLocalInput(f.created_from)} aria-describedby="f-zone" onInput={(e) => set('created_from', localInputToIso(e.currentTarget.value))} />
      </div>
      <div class="field">
        <label for="f-created_before">Created before</label>
        <input id="f-created_before" type="datetime-local" value={isoToLocalInput(f.created_before)} aria-describedby="f-zone" onInput={(e) => set('created_before', localInputToIso(e.currentTarget.value))} />
      </div>
      <div class="field">
        <label for="f-min_amount">Charged at least (¥)</label>
        <input id="f-min_amount" type="text" inputMode="decimal" pattern="\d{1,9}(\.\d{1,6})?" placeholder="0.00" value={f.min_amount ?? ''} aria-describedby="f-amount-hint" onInput={(e) => set('min_amount', e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="f-max_amount">Charged at most (¥)</label>
        <input id="f-max_amount" type="text" inputMode="decimal" pattern="\d{1,9}(\.\d{1,6})?" placeholder="100.00" value={f.max_amount ?? ''} aria-describedby="f-amount-hint" onInput={(e) => set('max_amount', e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="f-limit">Per page</label>
        <select id="f-limit" value={f.limit ?? '30'} onChange={(e) => set('limit', e.currentTarget.value === '30' ? '' : e.currentTarget.value)}>
          {['10', '30', '50', '100'].map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
      </div>
      <p class="hint field-wide" id="f-zone">
        Times in your zone ({browserZone()}). <span id="f-amount-hint">Amount filters count the net charged amount and leave out unsettled tasks.</span>
      </p>
      <div class="form-actions field-wide">
        <button type="submit" class="btn btn-primary">Apply filters</button>
        <button type="button" class="btn btn-secondary" onClick={() => onApply({})}>Clear</button>
      </div>
    </form>
  );
}
