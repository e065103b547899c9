import { useLocation } from 'preact-iso';
import { api, type Bill } from '../api';
import { Amount, ErrorBox, Loading, PageHeader, Pager, Status, Time, useLoad, useTitle } from '../components';
import { FilterForm, filtersFrom, hrefWith, type Filters } from '../filters';
import { sumAmounts } from '../format';

/** Totals over every bill the filters match (all pages, 100 at a time, at most 50 pages). */
async function totalsOf(filters: Filters) {
  const { page: _p, limit: _l, ...rest } = filters;
  const all: Bill[] = [];
  for (let page = 1; page <= 50; page++) {
    const r = await api.billing({ ...rest, page, limit: 100 });
    all.push(...r.data);
    if (!r.has_more) return { bills: all.length, complete: true, ...sums(all) };
  }
  return { bills: all.length, complete: false, ...sums(all) };
}

const sums = (bills: Bill[]) => ({
  reserved: sumAmounts(bills.filter((b) => b.settlement_status === 'reserved').map((b) => b.max_amount)),
  charged: sumAmounts(bills.map((b) => b.charged_amount)),
  released: sumAmounts(bills.map((b) => b.released_amount)),
});

export function Billing() {
  useTitle('Billing');
  const { query, route } = useLocation();
  const filters = filtersFrom(query);
  const key = JSON.stringify(filters);
  const bills = useLoad(() => api.billing(filters), [key]);
  const totals = useLoad(() => totalsOf(filters), [key]);
  const page = Number(filters.page ?? '1');
  const t = totals.data;
  return (
    <section>
      <PageHeader title="Billing" lead="The bill of every task: what was reserved, charged and released." />
      <FilterForm label="Filter bills" value={filters} onApply={(f) => route(hrefWith('/console/billing', f))} />
      <ErrorBox error={totals.error} title="The totals could not be computed" />
      {t && (
        <div class="cards" data-testid="billing-totals" aria-label="Totals">
          <div class="card stat stat-main">
            <p class="stat-label">Charged</p>
            <p class="stat-value" data-testid="total-charged"><Amount value={t.charged} /></p>
            <p class="stat-hint">{t.bills} bill{t.bills === 1 ? '' : 's'}{t.complete ? '' : ' (the first 5,000)'} matching the filters</p>
          </div>
          <div class="card stat">
            <p class="stat-label">Still reserved</p>
            <p class="stat-value"><Amount value={t.reserved} /></p>
            <p class="stat-hint">Held for unsettled tasks.</p>
          </div>
          <div class="card stat">
            <p class="stat-label">Released</p>
            <p class="stat-value" data-testid="total-released"><Amount value={t.released} /></p>
            <p class="stat-hint">Returned to your available funds.</p>
          </div>
        </div>
      )}
      <ErrorBox error={bills.error} title="The bills could not be read" />
      {bills.loading && !bills.data && <Loading />}
      {bills.data && bills.data.data.length === 0 && <p class="empty">No bills match these filters.</p>}
      {bills.data && bills.data.data.length > 0 && (
        <div class="table-wrap" role="region" aria-label="Bills" tabIndex={0}>
          <table class="table">
            <caption class="sr-only">Bills</caption>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Model</th>
                <th scope="col">Settlement</th>
                <th scope="col" class="num">Reserved</th>
                <th scope="col" class="num">Charged</th>
                <th scope="col" class="num">Released</th>
                <th scope="col">Created</th>
                <th scope="col">Settled</th>
              </tr>
            </thead>
            <tbody>
              {bills.data.data.map((b) => (
                <tr key={b.id}>
                  <td><a class="mono" href={`/console/tasks/${b.task_id}`}>{b.task_id}</a><div class="sub mono">{b.id}</div></td>
                  <td>{b.model}<div class="sub">{b.modality}</div></td>
                  <td><Status value={b.settlement_status} /></td>
                  <td class="num"><Amount value={b.max_amount} /></td>
                  <td class="num"><Amount value={b.charged_amount} /></td>
                  <td class="num"><Amount value={b.released_amount} /></td>
                  <td><Time iso={b.created_at} /></td>
                  <td><Time iso={b.settled_at} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {bills.data && <Pager label="Bills" page={page} hasMore={bills.data.has_more} onPage={(p) => route(hrefWith('/console/billing', { ...filters, page: p > 1 ? String(p) : '' }))} />}
    </section>
  );
}
