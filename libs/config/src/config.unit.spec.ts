import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

describe('configuration: EVENTSTORE_URL', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'gensvc-config-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const load = (value: string) => loadConfig({ DATA_DIR: dir, EVENTSTORE_URL: value });

  it.each(['esdb://localhost:2113?tls=false', 'esdb://admin:changeit@db.internal:2113', 'esdb+discover://a.internal:2113,b.internal:2113?tls=false'])(
    'accepts %s, a connection string the client library reads',
    (value) => {
      expect(load(value).eventStoreUrl).toBe(value);
    },
  );

  it.each([
    ['kurrentdb://localhost:2113', /kurrentdb:\/\//],
    ['http://localhost:2113', /http:\/\//],
    ['esdb://localhost:2113?tls=maybe', /maybe/],
  ])('refuses %s at start, naming the variable and the client’s reason', (value, reason) => {
    expect(() => load(value)).toThrow(ConfigError);
    expect(() => load(value)).toThrow(/EVENTSTORE_URL/);
    expect(() => load(value)).toThrow(reason);
  });

  it('is unset (the embedded event store) when empty', () => {
    expect(load('').eventStoreUrl).toBeUndefined();
  });
});
