import type { AppConfig } from '@gensvc/shared';
import { loadSupplierSettings, parseChannels } from './supplier-settings';

const config = { publicBaseUrl: 'http://127.0.0.1:3000', signingSecret: 's'.repeat(40) } as AppConfig;

describe('supplier settings', () => {
  it('have defaults', () => {
    const s = loadSupplierSettings(config, {});
    expect(s.jobDeadlineMs).toBe(600_000);
    expect(s.callbackWindowSeconds).toBe(300);
    expect(s.channels.size).toBe(0);
  });

  it('read channels with defaults for the timings', () => {
    const channels = parseChannels(JSON.stringify({ acme: { base_url: 'https://api.acme.example/v1/', callback_secret: 'x'.repeat(16), poll_interval_ms: 2000 } }), 'SUPPLIER_CHANNELS');
    expect(channels.get('acme')).toEqual({
      name: 'acme',
      baseUrl: 'https://api.acme.example/v1',
      apiKey: undefined,
      callbackSecret: 'x'.repeat(16),
      requestTimeoutMs: 10_000,
      pollAfterMs: 10_000,
      pollIntervalMs: 2000,
      deadlineMs: undefined,
      cancelTimeoutMs: 30_000,
      retryBaseMs: 500,
      retryMaxMs: 30_000,
    });
  });

  it.each([
    ['not json', /JSON object/],
    ['[]', /JSON object/],
    ['{"local": {"base_url": "https://a.example", "callback_secret": "xxxxxxxxxxxxxxxx"}}', /not "local"/],
    ['{"acme": {"base_url": "ftp://a.example", "callback_secret": "xxxxxxxxxxxxxxxx"}}', /base_url/],
    ['{"acme": {"base_url": "https://a.example", "callback_secret": "short"}}', /callback_secret/],
    ['{"acme": {"base_url": "https://a.example", "callback_secret": "xxxxxxxxxxxxxxxx", "poll_interval_ms": -1}}', /poll_interval_ms/],
    ['{"acme": {"base_url": "https://a.example", "callback_secret": "xxxxxxxxxxxxxxxx", "colour": 1}}', /unknown setting colour/],
  ])('refuse %s naming the variable', (text, message) => {
    expect(() => parseChannels(text, 'SUPPLIER_CHANNELS')).toThrow(/SUPPLIER_CHANNELS/);
    expect(() => parseChannels(text, 'SUPPLIER_CHANNELS')).toThrow(message);
  });

  it('refuse bad numbers and both channel sources at once', () => {
    expect(() => loadSupplierSettings(config, { SUPPLIER_JOB_DEADLINE_MS: 'soon' })).toThrow(/SUPPLIER_JOB_DEADLINE_MS/);
    expect(() => loadSupplierSettings(config, { SUPPLIER_CALLBACK_WINDOW_SECONDS: '0' })).toThrow(/SUPPLIER_CALLBACK_WINDOW_SECONDS/);
    expect(() => loadSupplierSettings(config, { SUPPLIER_CHANNELS: '{}', SUPPLIER_CHANNELS_FILE: '/x' })).toThrow(/SUPPLIER_CHANNELS_FILE/);
    expect(() => loadSupplierSettings(config, { SUPPLIER_CHANNELS_FILE: '/nonexistent/channels.json' })).toThrow(/SUPPLIER_CHANNELS_FILE cannot be read/);
  });
});
