import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, type Asset } from '../api';
import { Amount, AssetPreview, ErrorBox, Facts, Loading, PageHeader, Status, Time, useLoad, usePoll, useTitle } from '../components';
import { humanize, isTerminal } from '../format';

function Outputs({ ids }: { ids: string[] }) {
  const assets = useLoad(() => Promise.all(ids.map((id) => api.asset(id).catch((e) => ({ error: e, id })))), [ids.join(',')]);
  if (!assets.data) return <Loading label="Loading the results…" />;
  return (
    <div class="outputs">
      {assets.data.map((a) =>
        'error' in a ? (
          <ErrorBox key={a.id} error={a.error} title={`Result ${a.id} could not be read`} />
        ) : (
          <div key={(a as Asset).id} class="output">
            <AssetPreview asset={a as Asset} />
            <a class="sub" href={`/console/assets/${(a as Asset).id}`}>Asset details</a>
          </div>
        ),
      )}
    </div>
  );
}

export function TaskDetail() {
  const { params } = useRoute();
  const id = params.id;
  useTitle(`Task ${id}`);
  const task = useLoad(() => api.task(id), [id]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const t = task.data;
  const live = !!t && (!isTerminal(t.status) || ['requested', 'checking'].includes(t.cancellation.status) || t.settlement_status === 'reserved');
  usePoll(() => void task.reload(), 1000, live);
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.cancelTask(id);
      await task.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  if (task.error) return <ErrorBox error={task.error} title="The task could not be read" />;
  if (!t) return <Loading />;
  return (
    <section>
      <p class="crumbs"><a href="/console/tasks">Tasks</a> / <span class="mono">{t.id}</span></p>
      <PageHeader title={t.title ?? 'Task'} lead={<span class="mono">{t.id}</span>}>
        {(t.status === 'queued' || t.status === 'running') && (
          <button type="button" class="btn btn-secondary" onClick={cancel} disabled={busy}>
            {busy ? 'Canceling…' : 'Cancel task'}
          </button>
        )}
      </PageHeader>
      <ErrorBox error={error} title="The task could not be canceled" />
      <div class="status-line" aria-live="polite" data-testid="task-detail-status">
        <Status value={t.status} />
        {live && <span class="live"><span class="pulse" aria-hidden="true" /> Updating live</span>}
      </div>
      {t.error && (
        <div class="alert alert-error" role="alert">
          <p class="alert-title">The task failed</p>
          <p>{t.error.message}</p>
          <p class="alert-meta"><span>Code <code>{t.error.code}</code></span></p>
        </div>
      )}
      <div class="detail-grid">
        <div class="card">
          <h2>Details</h2>
          <Facts
            rows={[
              ['Model', <>{t.model}{t.resolved_model !== t.model && <span class="sub"> ({t.resolved_model})</span>}</>],
              ['Capability', t.capability],
              ['Modality', humanize(t.modality)],
              ['Created', <Time iso={t.created_at} />],
              ['Updated', <Time iso={t.updated_at} />],
              ['Finished', <Time iso={t.completed_at} />],
              ['Quote', <span class="mono">{t.quote_id}</span>],
              ['Price version', <span class="mono">{t.price_version}</span>],
            ]}
          />
        </div>
        <div class="card">
          <h2>Money</h2>
          <Facts
            rows={[
              ['Reserved at creation', <Amount value={t.max_amount} />],
              ['Charged', <Amount value={t.charged_amount} />],
              ['Settlement', <Status value={t.settlement_status} />],
              ['Cancellation', <>{humanize(t.cancellation.status)}{t.cancellation.error_code && <span class="sub"> ({t.cancellation.error_code})</span>}</>],
              ['Cancel requested', <Time iso={t.cancellation.requested_at} />],
            ]}
          />
        </div>
      </div>
      <h2>Results</h2>
      {!t.output && <p class="muted">{isTerminal(t.status) ? 'This task has no results.' : 'Results appear here when the task succeeds.'}</p>}
      {t.output?.text !== undefined && (
        <pre class="preview-text" tabIndex={0} aria-label="Text result">{t.output.text}</pre>
      )}
      {t.output?.voice_id && (
        <p>
          New voice: <a href="/console/voices" class="mono">{t.output.voice_id}</a>
        </p>
      )}
      {t.output?.asset_ids && t.output.asset_ids.length > 0 && <Outputs ids={t.output.asset_ids} />}
    </section>
  );
}
