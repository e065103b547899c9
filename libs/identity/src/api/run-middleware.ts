import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Runs connect-style middleware; resolves with its error, or when it calls next() or answers. */
export function runMiddleware(mw: RequestHandler | RequestHandler[], req: Request, res: Response): Promise<unknown> {
  const chain = Array.isArray(mw) ? mw : [mw];
  return chain.reduce<Promise<unknown>>(
    (prev, handler) =>
      prev.then((err) => {
        if (err || res.headersSent) return err;
        return new Promise<unknown>((resolve) => {
          const done = () => resolve(undefined);
          res.once('finish', done);
          res.once('close', done);
          handler(req, res, ((e?: unknown) => {
            res.off('finish', done);
            res.off('close', done);
            resolve(e ?? undefined);
          }) as NextFunction);
        });
      }),
    Promise.resolve(undefined),
  );
}
