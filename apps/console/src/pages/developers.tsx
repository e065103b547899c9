import { useEffect, useState } from 'preact/hooks';
import { ApiError, WEBHOOK_EVENT_TYPES, api, offers, type ApiKey, type WebhookEndpoint, type WebhookEventType } from '../api';
import { CopyButton, ErrorBox, Loading, PageHeader, Status, Time, useLoad, useTitle } from '../components';

function SecretOnce({ title, value, note, onDismiss, testId }: { title: string; value: string; note: string; onDismiss: () => void; testId: string }) {
  return (
    <div class="secret" role="status" data-testid={testId}>
      <p class="alert-title">{title}</p>
      <p>{note}</p>
      <div class="secret-row">
        <code class="secret-value" tabIndex={0}>{value}</code>
        <CopyButton text={value} />
      </div>
      <button type="button" class="btn btn-secondary btn-small" onClick={onDismiss}>I have saved it</button>
    </div>
  );
}

function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  const deliveries = useLoad(() => api.webhookDeliveries(endpoint.id), [endpoint.id]);
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  // A delivery sent again: the attempts it had then, and how long to look for the new one.
  const [awaiting, setAwaiting] = useState<{ id: string; attempts: number; until: number } | null>(null);
  const current = deliveries.data?.data ?? [];
  const newAttemptDue = awaiting !== null && Date.now() < awaiting.until && (current.find((d) => d.id === awaiting.id)?.attempts.length ?? 0) <= awaiting.attempts;
  // while a delivery waits for its first attempt, or for the attempt just requested, look again every 2 s
  const waiting = newAttemptDue || current.some((d) => d.status === 'pending');
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(() => void deliveries.reload(), 2000);
    return () => clearTimeout(timer);
  }, [waiting, deliveries.data]);
  const retry = async (id: string) => {
    setError(null);
    setBusy(id);
    try {
      const before = current.find((d) => d.id === id)?.attempts.length ?? 0;
      await api.retryDelivery(endpoint.id, id);
      setAwaiting({ id, attempts: before, until: Date.now() + 60_000 });
      setSent(id);
      await deliveries.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };
  if (deliveries.error) return <ErrorBox error={deliveries.error} title="The deliveries could not be read" />;
  if (!deliveries.data) return <Loading />;
  const list = deliveries.data.data;
  return (
    <div>
      <div class="section-head">
        <p class="sub">{list.length === 0 ? 'No deliveries yet.' : `${deliveries.data.has_more ? `The latest ${list.length}` : list.length} ${list.length === 1 ? 'delivery' : 'deliveries'}, newest first.`}</p>
        <button type="button" class="btn btn-secondary btn-small" onClick={() => void deliveries.reload()} disabled={deliveries.loading}>
          {deliveries.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <ErrorBox error={error} title="The delivery could not be sent again" />
      {sent && <p class="alert alert-ok" role="status">Delivery {sent} is queued to be sent again (same message id).</p>}
      {list.length > 0 && (
        <ul class="delivery-list">
          {list.map((d) => (
            <li key={d.id} class="delivery" data-testid="webhook-delivery" data-delivery-id={d.id}>
              <div class="delivery-head">
                <Status value={d.status} />
                <span class="mono">{d.event_type}</span>
                <span class="sub mono">{d.message_id}</span>
                <Time iso={d.created_at} />
                <button type="button" class="btn btn-secondary btn-small" disabled={busy === d.id} onClick={() => retry(d.id)} aria-label={`Send again: ${d.event_type} delivery ${d.id}`}>
                  Send again
                </button>
              </div>
              {d.next_attempt_at && <p class="sub">Next attempt <Time iso={d.next_attempt_at} /></p>}
              {d.attempts.length > 0 && (
                <div class="table-wrap" role="region" aria-label={`Attempts of ${d.id}`} tabIndex={0}>
                  <table class="table table-compact">
                    <caption class="sr-only">Attempts of {d.id}</caption>
                    <thead><tr><th scope="col">Attempt</th><th scope="col">Answer</th><th scope="col">Time taken</th><th scope="col">Error</th></tr></thead>
                    <tbody>
                      {d.attempts.map((a, i) => (
                        <tr key={i} data-testid="webhook-attempt">
                          <td><Time iso={a.at} /></td>
                          <td>{a.status_code ?? '—'}</td>
                          <td>{a.duration_ms !== null ? `${a.duration_ms} ms` : '—'}</td>
                          <td>{a.error ?? '—'}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Webhooks() {
  const endpoints = useLoad(
    async () => ((await offers('/v1/webhook-endpoints')) ? api.webhookEndpoints() : Promise.reject(new ApiError(404, 'NOT_FOUND', 'This server does not offer webhook endpoints.', undefined))),
    [],
  );
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [events, setEvents] = useState<WebhookEventType[]>(['task.succeeded', 'task.failed']);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const ep = await api.createWebhookEndpoint({ url, events: all ? ['*'] : events, ...(description ? { description } : {}) });
      setSecret({ title: `Signing secret of ${ep.url}`, value: ep.secret ?? '' });
      setUrl('');
      setDescription('');
      await endpoints.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      await endpoints.reload();
    } catch (err) {
      setError(err);
    }
  };
  const unavailable = endpoints.error instanceof ApiError && endpoints.error.code === 'NOT_FOUND';
  return (
    <section class="card" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook endpoints</h2>
      <p class="muted">Result notifications, signed with the Standard Webhooks scheme. Verify them with any Standard Webhooks library and your endpoint's secret.</p>
      {unavailable ? (
        <p class="alert alert-info">This server does not offer webhook endpoints yet.</p>
      ) : (
        <>
          {secret && (
            <SecretOnce testId="webhook-secret" title={secret.title} value={secret.value} note="Copy it now: it is shown only this once. After a rotation the old secret keeps signing for 24 hours." onDismiss={() => setSecret(null)} />
          )}
          <ErrorBox error={error} title="The request was refused" />
          <form class="form form-inline-grid" onSubmit={create} aria-label="New webhook endpoint">
            <div class="field field-wide">
              <label for="wh-url">Endpoint URL</label>
              <input id="wh-url" type="url" required placeholder="https://example.com/webhooks/gensvc" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
            </div>
            <div class="field field-wide">
              <label for="wh-description">Description <span class="muted">(optional)</span></label>
              <input id="wh-description" type="text" maxLength={500} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
            </div>
            <fieldset class="field-wide events">
              <legend>Events</legend>
              <label class="check"><input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} /> All events</label>
              {!all && WEBHOOK_EVENT_TYPES.map((t) => (
                <label key={t} class="check">
                  <input type="checkbox" checked={events.includes(t)} onChange={(e) => setEvents(e.currentTarget.checked ? [...events, t] : events.filter((x) => x !== t))} /> <span class="mono">{t}</span>
                </label>
              ))}
            </fieldset>
            <div class="form-actions field-wide">
              <button type="submit" class="btn btn-primary" disabled={busy}>{busy ? 'Adding…' : 'Add endpoint'}</button>
            </div>
          </form>
          {endpoints.error && !unavailable && <ErrorBox error={endpoints.error} title="The endpoints could not be read" />}
          {endpoints.loading && !endpoints.data && <Loading />}
          {endpoints.data && endpoints.data.data.length === 0 && <p class="empty">No endpoints yet.</p>}
          <ul class="endpoint-list" aria-label="Webhook endpoints">
            {(endpoints.data?.data ?? []).map((ep) => (
              <li key={ep.id} class="endpoint" data-testid="webhook-endpoint">
                <div class="endpoint-head">
                  <div>
                    <p class="endpoint-url mono break">{ep.url}</p>
                    <p class="sub">{ep.description ? `${ep.description} · ` : ''}{ep.events.includes('*') ? 'All events' : ep.events.join(', ')} · added <Time iso={ep.created_at} /></p>
                  </div>
                  <Status value={ep.status} />
                </div>
                <div class="endpoint-actions">
                  <button type="button" class="btn btn-secondary btn-small" onClick={() => act(async () => {
                    const r = await api.rotateWebhookSecret(ep.id);
                    setSecret({ title: `New signing secret of ${ep.url}`, value: r.secret ?? '' });
                  })}>Rotate secret</button>
                  {confirmDelete === ep.id ? (
                    <>
                      <button type="button" class="btn btn-danger btn-small" onClick={() => act(() => api.deleteWebhookEndpoint(ep.id)).then(() => setConfirmDelete(null))}>Delete for good</button>
                      <button type="button" class="btn btn-secondary btn-small" onClick={() => setConfirmDelete(null)}>Keep</button>
                    </>
                  ) : (
                    <button type="button" class="btn btn-danger-outline btn-small" onClick={() => setConfirmDelete(ep.id)}>Delete</button>
                  )}
                </div>
                <details class="deliveries">
                  <summary>Deliveries</summary>
                  <Deliveries endpoint={ep} />
                </details>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function ApiKeys() {
  const keys = useLoad(() => api.apiKeys(), []);
  const [created, setCreated] = useState<ApiKey | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const create = async () => {
    setBusy('new');
    setError(null);
    try {
      setCreated(await api.createApiKey());
      await keys.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };
  const revoke = async (id: string) => {
    setBusy(id);
    setError(null);
    try {
      await api.revokeApiKey(id);
      setConfirm(null);
      await keys.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section class="card" aria-labelledby="keys-title">
      <div class="section-head">
        <h2 id="keys-title">API keys</h2>
        <button type="button" class="btn btn-primary" onClick={create} disabled={busy === 'new'}>{busy === 'new' ? 'Creating…' : 'Create API key'}</button>
      </div>
      <p class="muted">A key acts for your whole account with every scope: keep it on servers, never in web pages. Keys can only be managed here, while signed in to the console.</p>
      {created?.api_key && (
        <SecretOnce testId="api-key-secret" title={`New API key ${created.id}`} value={created.api_key} note="Copy it now: it is shown only this once; the service keeps only its hash." onDismiss={() => setCreated(null)} />
      )}
      <ErrorBox error={error} title="The request was refused" />
      <ErrorBox error={keys.error} title="The keys could not be read" />
      {keys.loading && !keys.data && <Loading />}
      {keys.data && (
        <div class="table-wrap" role="region" aria-label="API keys" tabIndex={0}>
          <table class="table">
            <caption class="sr-only">API keys</caption>
            <thead><tr><th scope="col">Key</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Revoked</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {keys.data.data.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td class="mono">{k.id}</td>
                  <td><Status value={k.status} /></td>
                  <td><Time iso={k.created_at} /></td>
                  <td><Time iso={k.revoked_at} /></td>
                  <td class="actions-cell">
                    {k.status === 'active' && (confirm === k.id ? (
                      <span class="confirm" role="group" aria-label={`Confirm revoking ${k.id}`}>
                        <button type="button" class="btn btn-danger btn-small" disabled={busy === k.id} onClick={() => revoke(k.id)}>Revoke now</button>
                        <button type="button" class="btn btn-secondary btn-small" onClick={() => setConfirm(null)}>Keep</button>
                      </span>
                    ) : (
                      <button type="button" class="btn btn-danger-outline btn-small" onClick={() => setConfirm(k.id)} aria-label={`Revoke ${k.id}`}>Revoke</button>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function Developers() {
  useTitle('Developers');
  return (
    <section>
      <PageHeader title="Developers" lead={<>Notifications and keys for your own programs. The API is described at <a href="/v1/openapi.json">/v1/openapi.json</a>.</>} />
      <div class="stack">
        <ApiKeys />
        <Webhooks />
      </div>
    </section>
  );
}
