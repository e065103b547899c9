import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api } from '../api';
import { AssetPreview, CopyButton, ErrorBox, Facts, Loading, PageHeader, Time, useLoad, useTitle } from '../components';
import { formatBytes } from '../format';

export function AssetDetail() {
  const { params } = useRoute();
  const { route } = useLocation();
  const id = params.id;
  useTitle(`File ${id}`);
  const asset = useLoad(() => api.asset(id), [id]);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const remove = async () => {
    setError(null);
    try {
      await api.deleteAsset(id);
      route('/console/assets');
    } catch (e) {
      setError(e);
      setConfirming(false);
    }
  };
  if (asset.error) return <ErrorBox error={asset.error} title="The file could not be read" />;
  const a = asset.data;
  if (!a) return <Loading />;
  return (
    <section>
      <p class="crumbs"><a href="/console/assets">Assets</a> / <span class="mono">{a.id}</span></p>
      <PageHeader title={a.name} lead={<span class="mono">{a.id}</span>}>
        <CopyButton text={a.id} label="Copy id" />
        {!confirming ? (
          <button type="button" class="btn btn-danger-outline btn-small" onClick={() => setConfirming(true)}>Delete</button>
        ) : (
          <span class="confirm" role="group" aria-label="Confirm deletion">
            <span>Delete this file for good?</span>
            <button type="button" class="btn btn-danger btn-small" onClick={remove}>Delete</button>
            <button type="button" class="btn btn-secondary btn-small" onClick={() => setConfirming(false)}>Keep</button>
          </span>
        )}
      </PageHeader>
      <ErrorBox error={error} title="The file could not be deleted" />
      <div class="detail-grid detail-grid-wide">
        <AssetPreview asset={a} />
        <div class="card">
          <h2>Details</h2>
          <Facts
            rows={[
              ['Type', a.mime],
              ['Size', `${formatBytes(a.size)} (${a.size.toLocaleString()} bytes)`],
              ['SHA-256', <span class="mono break">{a.checksum}</span>],
              ['Added', <Time iso={a.created_at} />],
              ['Links valid until', <Time iso={a.links_expire_at} />],
            ]}
          />
          <p class="hint">Links expire after an hour; this page makes fresh ones each time you open it.</p>
        </div>
      </div>
    </section>
  );
}
