import { api } from '../api';
import { Amount, ErrorBox, Loading, PageHeader, TaskTable, useLoad, usePoll, useTitle } from '../components';
import { browserZone, isTerminal } from '../format';

export function Overview() {
  useTitle('Overview');
  const wallet = useLoad(() => api.wallet(), []);
  const tasks = useLoad(() => api.tasks({ limit: 8 }), []);
  const live = (tasks.data?.data ?? []).some((t) => !isTerminal(t.status));
  usePoll(
    () => {
      void wallet.reload();
      void tasks.reload();
    },
    2000,
    live,
  );
  const w = wallet.data;
  return (
    <section aria-labelledby="overview-title">
      <PageHeader title="Overview" lead="Your wallet and your latest tasks.">
        <a class="btn btn-primary" href="/console/models">Run a model</a>
        <a class="btn btn-secondary" href="/console/assets">Upload files</a>
      </PageHeader>
      <h2 id="overview-title" class="sr-only">Wallet</h2>
      <ErrorBox error={wallet.error} title="The wallet could not be read" />
      {!w && !wallet.error && <Loading />}
      {w && (
        <div class="cards" data-testid="wallet">
          <div class="card stat stat-main">
            <p class="stat-label" id="w-balance">Balance</p>
            <p class="stat-value" aria-labelledby="w-balance" data-testid="balance"><Amount value={w.balance} /></p>
            <p class="stat-hint">Available plus reserved, in {w.currency}.</p>
          </div>
          <div class="card stat">
            <p class="stat-label" id="w-available">Available</p>
            <p class="stat-value" aria-labelledby="w-available" data-testid="available"><Amount value={w.available} /></p>
            <p class="stat-hint">What new tasks can reserve.</p>
          </div>
          <div class="card stat">
            <p class="stat-label" id="w-reserved">Reserved</p>
            <p class="stat-value" aria-labelledby="w-reserved" data-testid="reserved"><Amount value={w.reserved} /></p>
            <p class="stat-hint">Held for tasks that have not finished.</p>
          </div>
        </div>
      )}
      <div class="section-head">
        <h2>Recent tasks</h2>
        <a href="/console/tasks">All tasks →</a>
      </div>
      <ErrorBox error={tasks.error} title="The tasks could not be read" />
      {tasks.loading && !tasks.data && <Loading />}
      {tasks.data && tasks.data.data.length === 0 && (
        <div class="empty">
          <p>No tasks yet.</p>
          <a class="btn btn-primary" href="/console/models">Run your first model</a>
        </div>
      )}
      {tasks.data && tasks.data.data.length > 0 && <TaskTable tasks={tasks.data.data} caption="Recent tasks" />}
      <p class="footnote">Times are shown in your browser's time zone ({browserZone()}).</p>
    </section>
  );
}
