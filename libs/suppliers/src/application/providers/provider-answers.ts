import type { ProviderAnswer, ProviderFile } from './provider-adapter';

const SAFE_FILE_NAME = /^[\p{L}\p{N} ._()-]{1,200}$/u;

/** The name an output file is stored under: the provider's, or its link's last segment, when safe; else `output-<n>`. */
export function fileName(file: ProviderFile, index: number): string {
  if (file.name && SAFE_FILE_NAME.test(file.name)) return file.name;
  if ('url' in file) {
    try {
      const last = decodeURIComponent(new URL(file.url).pathname.split('/').pop() ?? '');
      if (SAFE_FILE_NAME.test(last)) return last;
    } catch {
      // fall through to the generic name
    }
  }
  return `output-${index + 1}`;
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), when the answer has one. */
export function retryAfterMs(answer: ProviderAnswer): number | undefined {
  const value = answer.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The provider's own message or code, for the operator's log only. */
export function providerDetail(answer: ProviderAnswer): string | undefined {
  const j = answer.json as { detail?: unknown; message?: unknown; error?: { message?: unknown; code?: unknown } | string; code?: unknown } | null;
  const text = j?.detail ?? j?.message ?? (typeof j?.error === 'object' ? (j.error.message ?? j.error.code) : j?.error) ?? j?.code;
  return typeof text === 'string' ? text.slice(0, 300) : undefined;
}
