import type { NextFunction, Request, Response } from 'express';

/**
 * Answers to a request that carries a credential (`Authorization`, `X-Upload-Token`) are
 * the account's own: new API keys, webhook secrets, upload tokens, signed asset links, task
 * outputs. No cache, shared or the browser's, may keep them (CONTRACT §17): `no-store`, unless
 * a route says otherwise for a public answer. `/token` and the sign-in pages set it themselves.
 */
export function noStoreForCredentials(req: Request, res: Response, next: NextFunction): void {
  if (req.headers.authorization !== undefined || req.headers['x-upload-token'] !== undefined) res.setHeader('Cache-Control', 'no-store');
  next();
}

/**
 * For answers another library writes with its own headers (the MCP transport's
 * `no-cache, no-transform`): whatever `Cache-Control` it passes to `writeHead` becomes
 * `no-store`, since tool results carry signed links.
 */
export function forceNoStore(res: Response): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  res.writeHead = ((...args: unknown[]) => {
    for (const a of args) {
      if (a && typeof a === 'object' && !Array.isArray(a)) for (const k of Object.keys(a)) if (k.toLowerCase() === 'cache-control') delete (a as Record<string, unknown>)[k];
    }
    res.setHeader('Cache-Control', 'no-store');
    return writeHead(...args);
  }) as Response['writeHead'];
}
