import { entry } from './pino-nest-logger';

describe('PinoNestLogger entries', () => {
  it("reads the codebase's structured calls as fields and a message, not [object Object]", () => {
    const err = new Error('boom');
    expect(entry('warn', { taskId: 'task_1', err }, ['supplier job step failed', 'SupplierJobs'])).toEqual([{ taskId: 'task_1', err, context: 'SupplierJobs' }, 'supplier job step failed']);
    expect(entry('error', { code: 'http_404' }, ['an output could not be stored', 'ProviderJobs'])).toEqual([{ code: 'http_404', context: 'ProviderJobs' }, 'an output could not be stored']);
  });

  it("keeps Nest's own shapes: a message with its context, an error with its stack", () => {
    expect(entry('info', 'Nest application successfully started', ['NestApplication'])).toEqual([{ context: 'NestApplication' }, 'Nest application successfully started']);
    expect(entry('error', 'it broke', ['Error: it broke\n    at x', 'ExceptionHandler'])).toEqual([{ context: 'ExceptionHandler', trace: 'Error: it broke\n    at x' }, 'it broke']);
    expect(entry('warn', 'plain', [])).toEqual([{ context: undefined }, 'plain']);
  });
});
