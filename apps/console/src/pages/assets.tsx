import { useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, type Asset } from '../api';
import { ErrorBox, Loading, PageHeader, Pager, Time, useLoad, useTitle } from '../components';
import { formatBytes } from '../format';
import { previewKind } from '../preview';
import { mimeOf, uploadFile, type UploadProgress } from '../uploads';

interface Item {
  id: string;
  file: File;
  /** The upload's idempotency_key, kept for every retry of this file. */
  key: string;
  progress: UploadProgress;
}

const PHASE_TEXT: Record<UploadProgress['phase'], string> = {
  waiting: 'Waiting',
  hashing: 'Computing SHA-256',
  preparing: 'Preparing',
  sending: 'Sending',
  completing: 'Checking and registering',
  done: 'Uploaded',
  failed: 'Failed',
};

function Uploader({ onDone }: { onDone: () => void }) {
  const [items, setItems] = useState<Item[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const queue = useRef<Promise<void>>(Promise.resolve());

  const update = (id: string, patch: Partial<Item>) => setItems((list) => list.map((i) => (i.id === id ? { ...i, ...patch } : i)));

  const run = (item: Item) => {
    // One file at a time (the service allows two concurrent uploads per account).
    queue.current = queue.current.then(async () => {
      try {
        await uploadFile(item.file, item.key, (p) => update(item.id, { progress: p }));
        onDone();
      } catch (error) {
        setItems((list) => list.map((i) => (i.id === item.id ? { ...i, progress: { ...i.progress, phase: 'failed', fraction: 0, error } } : i)));
      }
    });
  };

  const add = (files: FileList | File[] | null) => {
    if (!files) return;
    const fresh = Array.from(files).map((file) => ({ id: crypto.randomUUID(), file, key: `console-upload-${crypto.randomUUID()}`, progress: { phase: 'waiting', fraction: 0 } as UploadProgress }));
    setItems((list) => [...fresh, ...list]);
    fresh.forEach(run);
  };

  return (
    <div class="card uploader">
      <div
        class={`dropzone${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          add(e.dataTransfer?.files ?? null);
        }}
      >
        <p class="dropzone-title">Drop files here</p>
        <p class="muted">PNG, JPEG, WebP, MP4, MP3, WAV, JSON or plain text; up to 64 MiB each. The SHA-256 is computed in your browser.</p>
        <label class="btn btn-primary file-label">
          Choose files
          <input ref={input} class="file-input" type="file" multiple aria-label="Upload files" onChange={(e) => {
            add(e.currentTarget.files);
            e.currentTarget.value = '';
          }} />
        </label>
      </div>
      {items.length > 0 && (
        <ul class="upload-list" aria-label="Uploads">
          {items.map((i) => {
            const p = i.progress;
            const pct = Math.round(p.fraction * 100);
            const assetId = p.upload?.asset_id;
            return (
              <li key={i.id} class={`upload-item upload-${p.phase}`} data-testid="upload-item">
                <div class="upload-row">
                  <span class="upload-name">{i.file.name}</span>
                  <span class="muted">{p.facts?.mime ?? mimeOf(i.file)} · {formatBytes(i.file.size)}</span>
                </div>
                <progress max={100} value={p.phase === 'done' ? 100 : p.phase === 'sending' || p.phase === 'completing' ? pct : undefined} aria-label={`Upload of ${i.file.name}`} />
                <div class="upload-row" aria-live="polite">
                  <span>{PHASE_TEXT[p.phase]}{p.phase === 'sending' ? ` ${pct}%` : ''}</span>
                  {assetId && <a href={`/console/assets/${assetId}`}>Open the file</a>}
                  {p.phase === 'failed' && (
                    <button type="button" class="btn btn-secondary btn-small" onClick={() => run(i)}>
                      Retry
                    </button>
                  )}
                </div>
                {p.facts && <p class="sub mono checksum">SHA-256 {p.facts.checksum}</p>}
                {p.phase === 'failed' && <ErrorBox error={p.error} title={`${i.file.name} was not uploaded`} />}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

function Thumb({ a }: { a: Asset }) {
  const kind = previewKind(a.mime);
  if (kind === 'image') return <img class="thumb" src={a.url} alt="" loading="lazy" />;
  const label = kind === 'json' ? '{ }' : kind === 'text' ? 'Aa' : kind === 'audio' ? '♪' : kind === 'video' ? '▶' : '·';
  return <span class={`thumb thumb-${kind}`} aria-hidden="true">{label}</span>;
}

export function Assets() {
  useTitle('Assets');
  const { query, route } = useLocation();
  const page = Number(query.page ?? '1');
  const q = query.q ?? '';
  const [search, setSearch] = useState(q);
  const assets = useLoad(() => api.assets({ page, q, limit: 24 }), [page, q]);
  return (
    <section>
      <PageHeader title="Assets" lead="Your uploaded files and task results. Use them as model inputs by their ids." />
      <Uploader onDone={() => void assets.reload()} />
      <form class="searchbar" role="search" onSubmit={(e) => { e.preventDefault(); route(search ? `/console/assets?q=${encodeURIComponent(search)}` : '/console/assets'); }}>
        <label for="asset-search" class="sr-only">Search files by name</label>
        <input id="asset-search" type="search" placeholder="Search by file name" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        <button type="submit" class="btn btn-secondary">Search</button>
      </form>
      <ErrorBox error={assets.error} title="The files could not be read" />
      {assets.loading && !assets.data && <Loading />}
      {assets.data && assets.data.data.length === 0 && <p class="empty">{q ? 'No file names match.' : 'No files yet. Upload one above.'}</p>}
      {assets.data && assets.data.data.length > 0 && (
        <ul class="asset-grid" aria-label="Files">
          {assets.data.data.map((a) => (
            <li key={a.id} class="card asset-card">
              <Thumb a={a} />
              <div class="asset-info">
                <a href={`/console/assets/${a.id}`} class="asset-name">{a.name}</a>
                <span class="sub">{a.mime} · {formatBytes(a.size)}</span>
                <span class="sub">
                  {a.source === 'task_output' && a.task_id ? <>Result of <a href={`/console/tasks/${a.task_id}`}>a task</a> · </> : null}
                  <Time iso={a.created_at} />
                </span>
              </div>
            </li>
          ))}
        </ul>
      )}
      {assets.data && <Pager label="Files" page={page} hasMore={assets.data.has_more} onPage={(p) => route(`/console/assets?${new URLSearchParams({ ...(q ? { q } : {}), ...(p > 1 ? { page: String(p) } : {}) })}`)} />}
    </section>
  );
}
