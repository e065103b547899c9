import type { JSX } from 'preact';

/** The subset of JSON Schema the catalogue's input schemas use (CONTRACT §7). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  description?: string;
  title?: string;
}

export type FieldKind = 'text' | 'textarea' | 'select' | 'integer' | 'number' | 'boolean' | 'assets' | 'voice' | 'list';

export interface Field {
  readonly name: string;
  readonly label: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly schema: JsonSchema;
  readonly options?: readonly unknown[];
  readonly defaultValue?: unknown;
}

/** A form value: strings for text and number inputs (parsed on submit), booleans, string lists. */
export type FormValue = string | boolean | string[];
export type FormValues = Record<string, FormValue>;

const typeOf = (s: JsonSchema): string | undefined => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type);

/** "negative_prompt" → "Negative prompt". */
export function labelOf(name: string, schema: JsonSchema): string {
  if (schema.title) return schema.title;
  if (name === 'asset_ids') return 'Files';
  if (name === 'voice_id') return 'Voice';
  const text = name.split('_').join(' ').replace(/\bids\b/, 'IDs').replace(/\bid\b/, 'ID');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The form's fields, in the schema's order, from a model's `input_schema`. */
export function fieldsOf(schema: JsonSchema | undefined): Field[] {
  const props = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
  return Object.entries(props).map(([name, s]) => {
    const t = typeOf(s);
    let kind: FieldKind;
    if (Array.isArray(s.enum) && s.enum.length > 0) kind = 'select';
    else if (t === 'boolean') kind = 'boolean';
    else if (t === 'integer') kind = 'integer';
    else if (t === 'number') kind = 'number';
    else if (t === 'array') kind = name === 'asset_ids' ? 'assets' : 'list';
    else if (name === 'voice_id') kind = 'voice';
    else kind = (s.maxLength ?? 0) > 200 || name === 'prompt' || name === 'text' ? 'textarea' : 'text';
    return { name, label: labelOf(name, s), kind, required: required.has(name), schema: s, options: s.enum, defaultValue: s.default };
  });
}

/** Initial form values: the schema's defaults (so the user sees what an omitted field means). */
export function initialValues(fields: readonly Field[]): FormValues {
  const v: FormValues = {};
  for (const f of fields) {
    if (f.kind === 'boolean') v[f.name] = f.defaultValue === true;
    else if (f.kind === 'assets' || f.kind === 'list') v[f.name] = Array.isArray(f.defaultValue) ? f.defaultValue.map(String) : [];
    else v[f.name] = f.defaultValue === undefined || f.defaultValue === null ? '' : String(f.defaultValue);
  }
  return v;
}

/**
 * The quote's `input` from the form: numbers parsed, enum values in their schema type,
 * empty optional fields left out (the model's default applies). Values the browser cannot
 * parse are sent as typed, so the API's validation names the field.
 */
export function toInput(fields: readonly Field[], values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.kind === 'boolean') {
      if (v === true || f.required || f.defaultValue !== undefined) out[f.name] = v === true;
      continue;
    }
    if (Array.isArray(v)) {
      const items = v.map((s) => s.trim()).filter(Boolean);
      if (items.length || f.required) out[f.name] = items;
      continue;
    }
    const text = typeof v === 'string' ? v : '';
    if (text.trim() === '' && !(f.kind === 'text' || f.kind === 'textarea')) continue;
    if (text === '' && !f.required) continue;
    if (f.kind === 'integer' || f.kind === 'number') {
      const n = Number(text);
      out[f.name] = text.trim() !== '' && Number.isFinite(n) ? n : text;
    } else if (f.kind === 'select') {
      const match = (f.options ?? []).find((o) => String(o) === text);
      out[f.name] = match === undefined ? text : match;
    } else {
      out[f.name] = text;
    }
  }
  return out;
}

export interface Choice {
  readonly value: string;
  readonly label: string;
}

export interface SchemaFormProps {
  readonly fields: readonly Field[];
  readonly values: FormValues;
  readonly onChange: (values: FormValues) => void;
  /** The caller's assets, offered for `asset_ids`. */
  readonly assets?: readonly Choice[];
  /** The caller's usable voices, offered for `voice_id`. */
  readonly voices?: readonly Choice[];
  readonly idPrefix?: string;
  readonly disabled?: boolean;
}

function hint(f: Field): string {
  const s = f.schema;
  const parts: string[] = [];
  if (s.description) parts.push(s.description);
  if (f.kind === 'integer' || f.kind === 'number') {
    if (s.minimum !== undefined && s.maximum !== undefined) parts.push(`From ${s.minimum} to ${s.maximum}.`);
    else if (s.minimum !== undefined) parts.push(`At least ${s.minimum}.`);
    else if (s.maximum !== undefined) parts.push(`At most ${s.maximum}.`);
  }
  if ((f.kind === 'text' || f.kind === 'textarea') && s.maxLength) parts.push(`Up to ${s.maxLength} characters.`);
  if (f.kind === 'assets' && s.maxItems) parts.push(s.maxItems === 1 ? 'Choose one file.' : `Choose up to ${s.maxItems} files.`);
  const shownDefault = Array.isArray(f.defaultValue) ? f.defaultValue.join(', ') : f.defaultValue;
  if (shownDefault !== undefined && shownDefault !== null && shownDefault !== '' && f.kind !== 'boolean') parts.push(`Default: ${String(shownDefault)}.`);
  return parts.join(' ');
}

/** A form generated from a model's input_schema: one labelled control per property. */
export function SchemaForm({ fields, values, onChange, assets = [], voices = [], idPrefix = 'in', disabled }: SchemaFormProps) {
  const set = (name: string, value: FormValue) => onChange({ ...values, [name]: value });
  return (
    <div class="schema-form">
      {fields.map((f) => {
        const id = `${idPrefix}-${f.name}`;
        const help = hint(f);
        const describedBy = help ? `${id}-hint` : undefined;
        const s = f.schema;
        const v = values[f.name];
        let control: JSX.Element;
        switch (f.kind) {
          case 'textarea':
            control = (
              <textarea id={id} name={f.name} rows={4} required={f.required} minLength={s.minLength} maxLength={s.maxLength} value={String(v ?? '')} disabled={disabled}
                aria-describedby={describedBy} onInput={(e) => set(f.name, e.currentTarget.value)} />
            );
            break;
          case 'select':
            control = (
              <select id={id} name={f.name} required={f.required} value={String(v ?? '')} disabled={disabled} aria-describedby={describedBy}
                onChange={(e) => set(f.name, e.currentTarget.value)}>
                {!f.required && f.defaultValue === undefined && <option value="">—</option>}
                {(f.options ?? []).map((o) => (
                  <option key={String(o)} value={String(o)}>{String(o)}</option>
                ))}
              </select>
            );
            break;
          case 'integer':
          case 'number':
            control = (
              <input id={id} name={f.name} type="number" inputMode={f.kind === 'integer' ? 'numeric' : 'decimal'} step={f.kind === 'integer' ? 1 : 'any'}
                min={s.minimum} max={s.maximum} required={f.required} value={String(v ?? '')} disabled={disabled} aria-describedby={describedBy}
                onInput={(e) => set(f.name, e.currentTarget.value)} />
            );
            break;
          case 'boolean':
            return (
              <div class="field field-check" key={f.name}>
                <input id={id} name={f.name} type="checkbox" checked={v === true} required={f.required && s.const === true} disabled={disabled}
                  aria-describedby={describedBy} onChange={(e) => set(f.name, e.currentTarget.checked)} />
                <label for={id}>{f.label}{f.required && <span class="req" aria-hidden="true"> *</span>}</label>
                {help && <p class="hint" id={describedBy}>{help}</p>}
              </div>
            );
          case 'assets': {
            const chosen = Array.isArray(v) ? v : [];
            const single = s.maxItems === 1;
            control = single ? (
              <select id={id} name={f.name} required={f.required} value={chosen[0] ?? ''} disabled={disabled} aria-describedby={describedBy}
                onChange={(e) => set(f.name, e.currentTarget.value ? [e.currentTarget.value] : [])}>
                <option value="">Choose a file…</option>
                {assets.map((a) => <option key={a.value} value={a.value}>{a.label}</option>)}
              </select>
            ) : (
              <select id={id} name={f.name} multiple size={Math.min(5, Math.max(2, assets.length))} required={f.required} disabled={disabled} aria-describedby={describedBy}
                onChange={(e) => set(f.name, Array.from(e.currentTarget.selectedOptions).map((o) => o.value))}>
                {assets.map((a) => <option key={a.value} value={a.value} selected={chosen.includes(a.value)}>{a.label}</option>)}
              </select>
            );
            break;
          }
          case 'voice':
            control = (
              <select id={id} name={f.name} required={f.required} value={String(v ?? '')} disabled={disabled} aria-describedby={describedBy}
                onChange={(e) => set(f.name, e.currentTarget.value)}>
                <option value="">{f.required ? 'Choose a voice…' : 'Default voice'}</option>
                {voices.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
              </select>
            );
            break;
          case 'list':
            control = (
              <input id={id} name={f.name} type="text" value={Array.isArray(v) ? v.join(', ') : ''} disabled={disabled} aria-describedby={describedBy}
                onInput={(e) => set(f.name, e.currentTarget.value.split(','))} />
            );
            break;
          default:
            control = (
              <input id={id} name={f.name} type="text" required={f.required} minLength={s.minLength} maxLength={s.maxLength} value={String(v ?? '')} disabled={disabled}
                aria-describedby={describedBy} onInput={(e) => set(f.name, e.currentTarget.value)} />
            );
        }
        return (
          <div class="field" key={f.name}>
            <label for={id}>{f.label}{f.required && <span class="req" aria-hidden="true"> *</span>}{f.required && <span class="sr-only"> (required)</span>}</label>
            {control}
            {help && <p class="hint" id={describedBy}>{help}</p>}
          </div>
        );
      })}
    </div>
  );
}
