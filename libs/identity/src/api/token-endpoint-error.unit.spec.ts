import type { Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ProjectionLagError } from '@gensvc/event-sourcing';
import { OAuthGrantError } from '../domain/oauth-grant';
import { sendTokenError } from './token-endpoint-error';

describe('sendTokenError (RFC 6749 §5.2, RFC 7009 §2.2.1)', () => {
  const answer = (err: unknown) => {
    const res = { headersSent: false, headers: {} as Record<string, string>, code: 0, body: undefined as unknown };
    const response = {
      get headersSent() {
        return res.headersSent;
      },
      setHeader: (k: string, v: string) => (res.headers[k] = v),
      status: (code: number) => ((res.code = code), response),
      json: (body: unknown) => (res.body = body),
    } as unknown as Response;
    const logger = { error: jest.fn() };
    sendTokenError(response, err, logger as unknown as Logger);
    return { ...res, logged: logger.error.mock.calls.length };
  };

  it('a revocation stored but not yet in the read models that authenticate: 503 temporarily_unavailable with Retry-After, not logged as a failure', () => {
    expect(answer(new ProjectionLagError(5n, 4n, 5000))).toMatchObject({
      code: 503,
      headers: { 'Retry-After': '1' },
      body: { error: 'temporarily_unavailable', error_description: expect.stringMatching(/stored/) },
      logged: 0,
    });
  });

  it('a refused grant: 400 with its error; anything unexpected: 500 server_error, logged', () => {
    expect(answer(new OAuthGrantError('invalid_grant', 'no'))).toMatchObject({ code: 400, body: { error: 'invalid_grant', error_description: 'no' } });
    expect(answer(new Error('boom'))).toMatchObject({ code: 500, body: { error: 'server_error', error_description: 'internal error' }, logged: 1 });
  });
});
