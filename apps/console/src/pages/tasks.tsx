import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api';
import { ErrorBox, Loading, PageHeader, Pager, TaskTable, useLoad, usePoll, useTitle } from '../components';
import { FilterForm, filtersFrom, hrefWith } from '../filters';
import { isTerminal } from '../format';

export function Tasks() {
  useTitle('Tasks');
  const { query, route } = useLocation();
  const filters = filtersFrom(query);
  const key = JSON.stringify(filters);
  const tasks = useLoad(() => api.tasks(filters), [key]);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const live = (tasks.data?.data ?? []).some((t) => !isTerminal(t.status) || !['none', 'not_needed', 'confirmed', 'refused', 'unconfirmed'].includes(t.cancellation?.status));
  usePoll(() => void tasks.reload(), 1500, live);
  const cancel = async (id: string) => {
    setBusy(id);
    setError(null);
    try {
      const r = await api.cancelTask(id);
      setNotice(r.cancellation.status === 'confirmed' ? `Task ${id} was canceled; its reservation was released.` : `Cancellation of ${id}: ${r.cancellation.status.replace(/_/g, ' ')}.`);
      await tasks.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };
  const page = Number(filters.page ?? '1');
  return (
    <section>
      <PageHeader title="Tasks" lead="Every task of your account. Running tasks update by themselves.">
        <a class="btn btn-primary" href="/console/models">New task</a>
      </PageHeader>
      <FilterForm label="Filter tasks" value={filters} onApply={(f) => route(hrefWith('/console/tasks', f))} />
      <p class="sr-only" role="status">{notice}</p>
      {notice && <p class="alert alert-ok">{notice}</p>}
      <ErrorBox error={error} title="The task could not be canceled" />
      <ErrorBox error={tasks.error} title="The tasks could not be read" />
      {tasks.loading && !tasks.data && <Loading />}
      {tasks.data && tasks.data.data.length === 0 && <p class="empty">No tasks match these filters.</p>}
      {tasks.data && tasks.data.data.length > 0 && <TaskTable tasks={tasks.data.data} caption="Tasks" onCancel={cancel} busy={busy} />}
      {tasks.data && <Pager label="Tasks" page={page} hasMore={tasks.data.has_more} onPage={(p) => route(hrefWith('/console/tasks', { ...filters, page: p > 1 ? String(p) : '' }))} />}
    </section>
  );
}
