import { ConfigError, loadConfig } from './config';

describe('configuration: EVENTSTORE_URL', () => {
  // With SIGNING_SECRET given, loading reads no file (DATA_DIR/signing.key is neither read nor written).
  const load = (value: string) => loadConfig({ DATA_DIR: '/nonexistent/gensvc-config', SIGNING_SECRET: 's'.repeat(32), EVENTSTORE_URL: value });

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
