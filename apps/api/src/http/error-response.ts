import type { Response } from 'express';
import { RequestContexts } from '@gensvc/event-sourcing';

/** Writes the spec's error object: exactly `{ error: { code, message, request_id } }`. */
export function sendError(res: Response, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = (res.getHeader('X-Request-Id') as string | undefined) ?? RequestContexts.current()?.requestId ?? 'unknown';
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).json({ error: { code, message, request_id: requestId } });
}
