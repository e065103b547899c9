import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, NetworkError, type Asset } from './api';
import { formatAmount, formatBytes, formatTime, humanize } from './format';
import { PREVIEW_LIMIT, prettyJson, previewKind, readTextPreview, type TextPreview } from './preview';

/** Loads data for a page; `reload` runs it again (quietly, keeping the last data). */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const current = useRef<AbortController | null>(null);
  const run = useCallback(() => {
    current.current?.abort();
    const ctl = new AbortController();
    current.current = ctl;
    setLoading(true);
    return load(ctl.signal).then(
      (d) => {
        if (ctl.signal.aborted) return;
        setData(d);
        setError(null);
        setLoading(false);
      },
      (e) => {
        if (ctl.signal.aborted || (e as Error)?.name === 'AbortError') return;
        setError(e);
        setLoading(false);
      },
    );
  }, deps);
  useEffect(() => {
    void run();
    return () => current.current?.abort();
  }, [run]);
  return { data, error, loading, reload: run, setData };
}

/** Calls `fn` every `ms` while `active` and the page is visible. */
export function usePoll(fn: () => unknown, ms: number, active: boolean) {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms, active]);
}

/** An API error as the API gave it: message, code and request id. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <div class="alert alert-error" role="alert">
      <p class="alert-title">{title ?? 'Something went wrong'}</p>
      <p>{e ? e.message : error instanceof NetworkError ? 'The service cannot be reached. Check the connection and try again.' : error instanceof Error ? error.message : String(error)}</p>
      {e && (
        <p class="alert-meta">
          <span>Code <code>{e.code}</code></span>
          {e.requestId && <span>Request ID <code>{e.requestId}</code></span>}
          {e.retryAfter !== undefined && <span>Try again in {e.retryAfter} s</span>}
        </p>
      )}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

/** A time in the browser's zone; the exact UTC value is in the datetime attribute and the tooltip. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={iso}>
      {formatTime(iso)}
    </time>
  );
}

export function Amount({ value, label }: { value: string | null | undefined; label?: string }) {
  return (
    <span class="amount" aria-label={label ? `${label} ${formatAmount(value)}` : undefined}>
      {formatAmount(value)}
    </span>
  );
}

const TONES: Record<string, string> = {
  succeeded: 'ok', settled: 'ok', completed: 'ok', active: 'ok', enabled: 'ok', delivered: 'ok', confirmed: 'ok',
  failed: 'bad', revoked: 'muted', disabled: 'muted', deleted: 'muted', canceled: 'muted', released: 'muted', expired: 'muted',
  running: 'busy', queued: 'wait', reserved: 'wait', pending: 'wait', retrying: 'wait', requested: 'wait', checking: 'busy', deleting: 'wait', uploading: 'busy', prepared: 'wait',
};

export function Status({ value }: { value: string | null | undefined }) {
  const v = value ?? '';
  return <span class={`badge badge-${TONES[v] ?? 'neutral'}`}>{humanize(v)}</span>;
}

export function Pager({ page, hasMore, onPage, label }: { page: number; hasMore: boolean; onPage: (p: number) => void; label: string }) {
  if (page <= 1 && !hasMore) return null;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" class="btn btn-secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        ← Previous
      </button>
      <span aria-live="polite">Page {page}</span>
      <button type="button" class="btn btn-secondary" disabled={!hasMore} onClick={() => onPage(page + 1)}>
        Next →
      </button>
    </nav>
  );
}

export function PageHeader({ title, children, lead }: { title: string; lead?: ComponentChildren; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <div>
        <h1>{title}</h1>
        {lead && <p class="lead">{lead}</p>}
      </div>
      {children && <div class="page-actions">{children}</div>}
    </header>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="btn btn-secondary btn-small"
      onClick={() =>
        navigator.clipboard?.writeText(text).then(
          () => {
            setDone(true);
            setTimeout(() => setDone(false), 1500);
          },
          () => undefined,
        )
      }
    >
      {done ? 'Copied' : label}
      <span class="sr-only" aria-live="polite">{done ? ' copied to the clipboard' : ''}</span>
    </button>
  );
}

/** A definition list of label/value rows. */
export function Facts({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Inline preview of an asset: image, audio and video inline; text and JSON from the first 128 KiB. */
export function AssetPreview({ asset, compact }: { asset: Asset; compact?: boolean }) {
  const kind = previewKind(asset.mime);
  const [text, setText] = useState<TextPreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (kind !== 'text' && kind !== 'json') return;
    const ctl = new AbortController();
    setText(null);
    setError(null);
    readTextPreview(asset.url, ctl.signal).then(setText, (e) => {
      if ((e as Error).name !== 'AbortError') setError(e);
    });
    return () => ctl.abort();
  }, [asset.id, asset.url, kind]);

  const download = (
    <a class="btn btn-secondary btn-small" href={asset.download_url} download={asset.download_name}>
      Download the whole file ({formatBytes(asset.size)})
    </a>
  );
  let body: ComponentChildren;
  if (kind === 'image') body = <img class="preview-media" src={asset.url} alt={`Preview of ${asset.name}`} loading="lazy" />;
  else if (kind === 'audio') body = <audio class="preview-audio" controls preload="metadata" src={asset.url} aria-label={`Play ${asset.name}`} />;
  else if (kind === 'video') body = <video class="preview-media" controls preload="metadata" src={asset.url} aria-label={`Play ${asset.name}`} />;
  else if (kind === 'text' || kind === 'json') {
    if (error) body = <ErrorBox error={error} title="The preview could not be read" />;
    else if (!text) body = <Loading label="Reading the preview…" />;
    else
      body = (
        <>
          <p class={`preview-note${text.truncated ? ' preview-note-cut' : ''}`} data-testid="preview-note">
            {text.truncated
              ? `Preview: the first ${formatBytes(text.bytes)} of ${text.total !== null ? formatBytes(text.total) : 'a longer file'} (previews read at most ${formatBytes(PREVIEW_LIMIT)}). Download the whole file to see the rest.`
              : `The whole file (${formatBytes(text.bytes)}).`}
          </p>
          <pre class={`preview-text${compact ? ' preview-text-compact' : ''}`} tabIndex={0} aria-label={`Contents of ${asset.name}`} data-testid="preview-text" data-bytes={text.bytes}>
            {kind === 'json' ? prettyJson(text.text, text.truncated) : text.text}
          </pre>
        </>
      );
  } else body = <p class="muted">No preview for {asset.mime} files.</p>;
  return (
    <figure class="preview">
      {body}
      <figcaption>
        <span class="preview-name">{asset.name}</span>
        <span class="muted">
          {asset.mime} · {formatBytes(asset.size)}
        </span>
        {download}
      </figcaption>
    </figure>
  );
}

export function humanStatus(s: string | null | undefined): string {
  return humanize(s);
}

export { formatAmount };

/** Sets the document title for the page (read by screen readers on navigation). */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · gensvc console`;
  }, [title]);
}

/** A table of tasks (overview and tasks pages). */
export function TaskTable({ tasks, caption, onCancel, busy }: { tasks: import('./api').Task[]; caption: string; onCancel?: (id: string) => void; busy?: string | null }) {
  return (
    <div class="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table class="table">
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Status</th>
            <th scope="col">Model</th>
            <th scope="col" class="num">Reserved</th>
            <th scope="col" class="num">Charged</th>
            <th scope="col">Created</th>
            {onCancel && <th scope="col"><span class="sr-only">Actions</span></th>}
          </tr>
        </thead>
        <tbody>
          {tasks.map((t) => (
            <tr key={t.id} data-task-id={t.id}>
              <td>
                <a href={`/console/tasks/${t.id}`} class="task-link">
                  {t.title ?? <span class="mono">{t.id}</span>}
                </a>
                {t.title && <div class="sub mono">{t.id}</div>}
              </td>
              <td data-testid="task-status">
                <Status value={t.status} />
                {t.cancellation?.status && !['none', 'not_needed', 'confirmed'].includes(t.cancellation.status) && (
                  <div class="sub">Cancel {t.cancellation.status}</div>
                )}
              </td>
              <td>
                {t.model}
                <div class="sub">{t.modality}</div>
              </td>
              <td class="num"><Amount value={t.max_amount} /></td>
              <td class="num"><Amount value={t.charged_amount} /></td>
              <td><Time iso={t.created_at} /></td>
              {onCancel && (
                <td class="actions-cell">
                  {(t.status === 'queued' || t.status === 'running') && (
                    <button type="button" class="btn btn-secondary btn-small" disabled={busy === t.id} onClick={() => onCancel(t.id)} aria-label={`Cancel task ${t.title ?? t.id}`}>
                      {busy === t.id ? 'Canceling…' : 'Cancel'}
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
