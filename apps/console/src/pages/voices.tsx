import { useState } from 'preact/hooks';
import { api } from '../api';
import { CopyButton, ErrorBox, Loading, PageHeader, Status, Time, useLoad, usePoll, useTitle } from '../components';

export function Voices() {
  useTitle('Voices');
  const voices = useLoad(() => api.voices({ limit: 100 }), []);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const live = (voices.data?.data ?? []).some((v) => v.status === 'deleting');
  usePoll(() => void voices.reload(), 2000, live);
  const remove = async (id: string) => {
    setBusy(id);
    setError(null);
    try {
      await api.deleteVoice(id);
      await voices.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section>
      <PageHeader title="Voices" lead="Voices you cloned. Use one as voice_id with a speech model of the same channel.">
        <a class="btn btn-primary" href="/console/models?model=voice-clone-std">Clone a voice</a>
      </PageHeader>
      <ErrorBox error={error} title="The voice could not be deleted" />
      <ErrorBox error={voices.error} title="The voices could not be read" />
      {voices.loading && !voices.data && <Loading />}
      {voices.data && voices.data.data.length === 0 && <p class="empty">No voices yet.</p>}
      {voices.data && voices.data.data.length > 0 && (
        <div class="table-wrap" role="region" aria-label="Voices" tabIndex={0}>
          <table class="table">
            <caption class="sr-only">Voices</caption>
            <thead>
              <tr>
                <th scope="col">Voice</th>
                <th scope="col">State</th>
                <th scope="col">Models</th>
                <th scope="col">Created</th>
                <th scope="col"><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {voices.data.data.map((v) => (
                <tr key={v.id}>
                  <td>{v.name ?? '—'}<div class="sub mono">{v.id}</div></td>
                  <td><Status value={v.status} />{v.deletion && v.deletion.status !== 'none' && <div class="sub">Deletion {v.deletion.status}</div>}</td>
                  <td>{Array.isArray(v.models) && v.models.length ? (v.models as string[]).join(', ') : '—'}</td>
                  <td><Time iso={v.created_at} /></td>
                  <td class="actions-cell">
                    <CopyButton text={v.id} label="Copy id" />
                    {v.status === 'active' && (
                      <button type="button" class="btn btn-danger-outline btn-small" disabled={busy === v.id} onClick={() => remove(v.id)} aria-label={`Delete voice ${v.name ?? v.id}`}>
                        {busy === v.id ? 'Deleting…' : 'Delete'}
                      </button>
                    )}
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
