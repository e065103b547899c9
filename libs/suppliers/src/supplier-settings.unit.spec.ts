import type { AppConfig } from '@gensvc/config';
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
    const { channels } = parseChannels(JSON.stringify({ acme: { base_url: 'https://api.acme.example/v1/', callback_secret: 'x'.repeat(16), poll_interval_ms: 2000 } }), 'SUPPLIER_CHANNELS');
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

  it('read provider channels with the type\'s default base_url and credential field', () => {
    const { providers, channels } = parseChannels(
      JSON.stringify({
        rep: { type: 'replicate', api_token: 'r8_x', webhook_secret: 'whsec_abcdefgh', requests_per_minute: 600 },
        ds: { type: 'dashscope', api_key: 'sk-1', base_url: 'https://dashscope-intl.aliyuncs.com/', output_hosts: ['dashscope-result-bj.oss-cn-beijing.aliyuncs.com'] },
      }),
      'SUPPLIER_CHANNELS',
    );
    expect(channels.size).toBe(0);
    expect(providers.get('rep')).toMatchObject({ type: 'replicate', baseUrl: 'https://api.replicate.com', credential: 'r8_x', webhookSecret: 'whsec_abcdefgh', requestsPerMinute: 600, probeIntervalS: 300 });
    expect(providers.get('ds')).toMatchObject({ type: 'dashscope', baseUrl: 'https://dashscope-intl.aliyuncs.com', credential: 'sk-1', outputHosts: ['dashscope-result-bj.oss-cn-beijing.aliyuncs.com'] });
  });

  it.each([
    ['{"rep": {"type": "replicate", "api_key": "x"}}', /channel "rep".*(api_token|unknown setting api_key)/],
    ['{"ds": {"type": "dashscope"}}', /channel "ds" needs api_key/],
    ['{"x": {"type": "midjourney", "api_key": "k"}}', /channel "x" type must be one of/],
    ['{"f": {"type": "fal", "api_key": "k", "probe_interval_s": 0}}', /channel "f" probe_interval_s must be an integer between 1 and 86400/],
    ['{"f": {"type": "fal", "api_key": "k", "poll_interval_ms": 50}}', /poll_interval_ms must be an integer between 100/],
    ['{"o": {"type": "openai", "api_key": "k", "output_hosts": "cdn.example"}}', /output_hosts/],
  ])('refuse the provider channel %s naming the channel and the field', (text, message) => {
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
