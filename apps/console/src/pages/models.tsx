import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, type ModelSummary, type Price, type Quote } from '../api';
import { Amount, ErrorBox, Loading, PageHeader, Time, useLoad, useTitle } from '../components';
import { formatAmount, humanize } from '../format';
import { SchemaForm, fieldsOf, initialValues, toInput, type FormValues } from '../schema-form';

/** "¥0.080000 per image (size 512x512)": the price and the parameters it applies to. */
function priceLine(p: Price): string {
  const params = p.parameters && typeof p.parameters === 'object' ? Object.entries(p.parameters as Record<string, unknown>) : [];
  const extra = params.map(([k, v]) => `${k.replace(/_/g, ' ')} ${String(v)}`).join(', ');
  return `${formatAmount(p.unit_price)} per ${p.unit.replace(/_/g, ' ')}${extra ? ` (${extra})` : ''}`;
}

/** The price version of a model's prices (one per model; a published price change gives a new one). */
function priceVersion(prices: readonly Price[]): string | null {
  return prices[0]?.price_version ?? null;
}

/** Which of the caller's files fit a model's `asset_ids` (by the model's modality or capability). */
function fits(m: ModelSummary, mime: string): boolean {
  if (m.capabilities.some((c) => c.startsWith('voice.'))) return mime.startsWith('audio/');
  if (m.modality === 'image') return mime.startsWith('image/');
  return true;
}

const newKey = () => `console-${crypto.randomUUID()}`;

function RunModel({ id }: { id: string }) {
  const { route } = useLocation();
  const model = useLoad(() => api.model(id), [id]);
  const assets = useLoad(() => api.assets({ limit: 100 }).catch(() => null), []);
  const voices = useLoad(() => api.voices({ limit: 100 }).catch(() => null), []);
  const fields = useMemo(() => fieldsOf(model.data?.input_schema), [model.data]);
  const [values, setValues] = useState<FormValues>({});
  const [capability, setCapability] = useState('');
  const [title, setTitle] = useState('');
  const [quote, setQuote] = useState<Quote | null>(null);
  const [busy, setBusy] = useState<'quote' | 'run' | null>(null);
  const [error, setError] = useState<unknown>(null);
  // One Idempotency-Key per quote: a retry of "Run" repeats the same creation.
  const [runKey, setRunKey] = useState(newKey);
  const quoteHeading = useRef<HTMLHeadingElement>(null);
  // A new quote takes the focus (and the screen reader) to its amounts.
  useEffect(() => {
    if (quote) quoteHeading.current?.focus();
  }, [quote?.quote_id]);

  useEffect(() => {
    if (!model.data) return;
    setValues(initialValues(fieldsOf(model.data.input_schema)));
    setCapability(model.data.capabilities[0] ?? '');
    setQuote(null);
    setError(null);
  }, [model.data]);

  const change = (v: FormValues) => {
    setValues(v);
    setQuote(null); // any change of parameters needs a new quote
  };

  const getQuote = async (e: Event) => {
    e.preventDefault();
    setBusy('quote');
    setError(null);
    try {
      const q = await api.quote({ model: id, capability, input: toInput(fields, values) });
      setQuote(q);
      setRunKey(newKey());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  const run = async () => {
    if (!quote) return;
    setBusy('run');
    setError(null);
    try {
      const task = await api.createTask(quote.quote_id, title.trim() || undefined, runKey);
      route(`/console/tasks/${task.id}`);
    } catch (err) {
      setError(err);
      setBusy(null);
    }
  };

  if (model.error) return <ErrorBox error={model.error} title="The model could not be read" />;
  if (!model.data) return <Loading />;
  const m = model.data;
  // As the API says now: a model the catalogue does not sell (or whose routes fail their checks) cannot be quoted.
  const closed = !m.available;
  const assetChoices = (assets.data?.data ?? []).filter((a) => fits(m, a.mime)).map((a) => ({ value: a.id, label: `${a.name} · ${a.id.slice(-6)}` }));
  const voiceChoices = (voices.data?.data ?? []).filter((v) => v.status === 'active').map((v) => ({ value: v.id, label: `${v.name ?? v.id}` }));
  return (
    <div class="card run-card">
      <div class="run-head">
        <h2 id="run-title">Run {m.name}</h2>
        <a href="/console/models" class="btn btn-ghost btn-small">Close</a>
      </div>
      {closed && (
        <div class="alert alert-info" role="status" data-testid="model-unavailable">
          <p class="alert-title">Not available now</p>
          <p>{m.name} cannot be quoted or run at the moment. Its prices stay listed; try again later.</p>
        </div>
      )}
      <form onSubmit={getQuote} aria-labelledby="run-title" class="form">
        {m.capabilities.length > 1 && (
          <div class="field">
            <label for="capability">Capability</label>
            <select id="capability" value={capability} onChange={(e) => { setCapability(e.currentTarget.value); setQuote(null); }}>
              {m.capabilities.map((c) => <option key={c} value={c}>{c}</option>)}
            </select>
          </div>
        )}
        <SchemaForm fields={fields} values={values} onChange={change} assets={assetChoices} voices={voiceChoices} disabled={busy !== null} />
        <div class="field">
          <label for="task-title">Title <span class="muted">(optional)</span></label>
          <input id="task-title" type="text" maxLength={200} value={title} onInput={(e) => setTitle(e.currentTarget.value)} aria-describedby="task-title-hint" />
          <p class="hint" id="task-title-hint">Helps you find the task later.</p>
        </div>
        <ErrorBox error={error} title={busy === null && quote ? 'The task could not be created' : 'The request was refused'} />
        {!quote && (
          <div class="form-actions">
            <button type="submit" class="btn btn-primary" disabled={busy !== null || closed}>
              {busy === 'quote' ? 'Getting a quote…' : 'Get a quote'}
            </button>
            <p class="hint">A quote reserves nothing. You confirm the price next.</p>
          </div>
        )}
      </form>
      {quote && (
        <section class="quote" aria-labelledby="quote-title" data-testid="quote">
          <h3 id="quote-title" tabIndex={-1} ref={quoteHeading}>Quote</h3>
          <dl class="quote-grid">
            <div><dt>Price</dt><dd data-testid="quote-estimated"><Amount value={quote.estimated_amount} /></dd></div>
            <div><dt>Reserved now</dt><dd data-testid="quote-max"><Amount value={quote.max_amount} /></dd></div>
            <div><dt>Unit price</dt><dd><Amount value={quote.unit_price} /> × {quote.quantity} {quote.unit}</dd></div>
            <div><dt>Valid until</dt><dd><Time iso={quote.expires_at} /></dd></div>
          </dl>
          <p class="hint">
            Running reserves {formatAmount(quote.max_amount)} from your wallet; a successful task is charged {formatAmount(quote.estimated_amount)} and the rest is released.
            A failed task, or one canceled before work starts, costs nothing.
          </p>
          <div class="form-actions">
            <button type="button" class="btn btn-primary" onClick={run} disabled={busy !== null}>
              {busy === 'run' ? 'Starting…' : `Confirm and run for ${formatAmount(quote.estimated_amount)}`}
            </button>
            <button type="button" class="btn btn-secondary" onClick={() => setQuote(null)} disabled={busy !== null}>
              Change parameters
            </button>
          </div>
        </section>
      )}
    </div>
  );
}

export function Models() {
  useTitle('Models');
  const { query } = useLocation();
  const selected = query.model;
  const models = useLoad(() => api.models(), []);
  const prices = useLoad(() => api.prices(), []);
  const byModel = useMemo(() => {
    const map = new Map<string, Price[]>();
    for (const p of prices.data?.data ?? []) map.set(p.model, [...(map.get(p.model) ?? []), p]);
    return map;
  }, [prices.data]);
  return (
    <section>
      <PageHeader title="Models" lead="The catalogue with its prices in CNY. Choose a model, fill in the form, check the quote, then run it." />
      <ErrorBox error={models.error} title="The catalogue could not be read" />
      {models.loading && !models.data && <Loading />}
      <div class={`models-layout${selected ? ' has-run' : ''}`}>
        <ul class="model-list" aria-label="Models">
          {(models.data?.data ?? []).map((m: ModelSummary) => (
            <li key={m.id} class={`card model-card${selected === m.id ? ' selected' : ''}`}>
              <div class="model-top">
                <h2 class="model-name">{m.name}</h2>
                <span class={`badge ${m.available ? 'badge-ok' : 'badge-muted'}`}>{m.available ? 'Available' : 'Unavailable'}</span>
              </div>
              <p class="sub mono">{m.id}</p>
              <p class="model-meta">
                <span class="chip">{humanize(m.modality)}</span>
                {m.capabilities.map((c) => <span key={c} class="chip chip-light">{c}</span>)}
              </p>
              <ul class="price-list" aria-label={`Prices of ${m.name}`}>
                {(byModel.get(m.id) ?? m.prices ?? []).map((p, i) => <li key={i}>{priceLine(p)}</li>)}
              </ul>
              {priceVersion(byModel.get(m.id) ?? m.prices ?? []) && (
                <p class="sub" data-testid={`price-version-${m.id}`}>
                  Price version <span class="mono">{priceVersion(byModel.get(m.id) ?? m.prices ?? [])}</span>
                </p>
              )}
              {m.available ? (
                <a class="btn btn-secondary btn-small" href={`/console/models?model=${encodeURIComponent(m.id)}`} aria-label={`Run ${m.name}`}>
                  Run
                </a>
              ) : (
                <button type="button" class="btn btn-secondary btn-small" disabled aria-label={`Not available: ${m.name}`}>
                  Not available
                </button>
              )}
            </li>
          ))}
        </ul>
        {selected && <RunModel key={selected} id={selected} />}
      </div>
    </section>
  );
}
