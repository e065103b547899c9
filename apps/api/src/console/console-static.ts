import type { NextFunction, Request, Response } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { sendError } from '../http/error-response';

/**
 * The addresses of the web console's pages (CONTRACT §11) plus its OAuth callback: each
 * answers the app's index.html and the app routes in the browser.
 */
export const CONSOLE_PAGES: readonly RegExp[] = [
  /^\/$/,
  /^\/callback$/,
  /^\/models$/,
  /^\/tasks$/,
  /^\/tasks\/[A-Za-z0-9_-]{1,100}$/,
  /^\/billing$/,
  /^\/assets$/,
  /^\/assets\/[A-Za-z0-9_-]{1,100}$/,
  /^\/voices$/,
  /^\/developers$/,
];

const HASHED_ASSET = /^\/assets\/[A-Za-z0-9_.-]+\.(?:js|css|svg|png|woff2)$/;
const ROOT_FILE = /^\/(?:favicon\.svg|robots\.txt)$/;

/** The repository (or image) root: the nearest folder above this file with the project's package.json. */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'gensvc') return dir;
      } catch {
        /* not ours */
      }
    }
    if (dirname(dir) === dir) return process.cwd();
  }
}

/** Where `npm run build` puts the console (vite's outDir). */
export const CONSOLE_DIST = resolve(packageRoot(__dirname), 'dist', 'console');

/**
 * A strict Content-Security-Policy: scripts, styles and fonts only from the console's own
 * files (no inline code), API calls, previews and media only from the service itself.
 */
export function consoleCsp(publicBaseUrl: string): string {
  const origin = new URL(publicBaseUrl).origin;
  const self = `'self' ${origin}`;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "font-src 'self'",
    `img-src ${self} blob: data:`,
    `media-src ${self} blob:`,
    `connect-src ${self}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self' " + origin,
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/**
 * Serves the built console at `/console/`: hashed assets with a year of immutable caching,
 * index.html (for every page address) revalidated on each visit, a strict CSP everywhere.
 * Other paths under /console fall through to the API's 404.
 */
export function consoleStatic(publicBaseUrl: string, dist: string = CONSOLE_DIST) {
  const csp = consoleCsp(publicBaseUrl);
  const basePath = new URL(publicBaseUrl).pathname.replace(/\/+$/, '');
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.path !== '/console' && !req.path.startsWith('/console/')) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path.slice('/console'.length);
    if (path === '') {
      res.redirect(301, `${basePath}/console/`);
      return;
    }
    const headers = (cache: string) => {
      res.setHeader('Content-Security-Policy', csp);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('X-Frame-Options', 'DENY');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.setHeader('Cache-Control', cache);
    };
    const send = (file: string, cache: string) => {
      headers(cache);
      res.sendFile(file, { dotfiles: 'deny', lastModified: true, cacheControl: false }, (err?: Error & { status?: number }) => {
        if (!err || res.headersSent) return;
        res.removeHeader('Cache-Control');
        if (err.status === 404 || (err as { code?: string }).code === 'ENOENT') next();
        else next(err);
      });
    };
    if (CONSOLE_PAGES.some((p) => p.test(path))) {
      const index = join(dist, 'index.html');
      if (!existsSync(index)) {
        sendError(res, 503, 'INTERNAL', 'the console is not built: run npm run build');
        return;
      }
      send(index, 'no-cache');
      return;
    }
    if (HASHED_ASSET.test(path)) return send(join(dist, path), 'public, max-age=31536000, immutable');
    if (ROOT_FILE.test(path)) return send(join(dist, path), 'public, max-age=3600');
    next();
  };
}
