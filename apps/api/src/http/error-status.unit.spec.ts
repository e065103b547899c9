import { APP_ERROR_CODES, AppError, isServiceFault } from '@gensvc/kernel';
import { ERROR_STATUS, errorStatus, statusOf } from './error-status';

describe('the HTTP status of error codes', () => {
  it('has a status for every code of the kernel and for nothing else', () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...APP_ERROR_CODES].sort());
    for (const code of APP_ERROR_CODES) expect({ code, status: errorStatus(code) }).toEqual({ code, status: expect.any(Number) });
  });

  it('answers 5xx exactly for the codes the kernel calls faults of the service', () => {
    const serverSide = APP_ERROR_CODES.filter((c) => ERROR_STATUS[c] >= 500);
    expect(serverSide).toEqual(APP_ERROR_CODES.filter((c) => isServiceFault(c)));
    expect(serverSide).toEqual(['INTERNAL', 'SERVICE_UNAVAILABLE']);
  });

  it('reads the status of an error from its code', () => {
    expect(statusOf(new AppError('QUOTE_EXPIRED', 'expired'))).toBe(409);
    expect(statusOf(new AppError('UPLOAD_EXPIRED', 'gone'))).toBe(410);
    expect(statusOf(new AppError('RATE_LIMITED', 'slow down', { 'Retry-After': '1' }))).toBe(429);
    expect('status' in new AppError('NOT_FOUND', 'x')).toBe(false);
  });
});
