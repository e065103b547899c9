import type { Readable } from 'node:stream';
import { AppError, FixedClock } from '@gensvc/kernel';
import { type EventStore } from '@gensvc/event-sourcing';
import { Catalogue } from '@gensvc/catalogue/contracts';
import { AssetRegistry, type UsableAsset } from '@gensvc/assets/contracts';
import { VoiceRegistry } from '@gensvc/voices/contracts';
import { IssueQuoteHandler, type IssueQuoteCommand } from './issue-quote.handler';

/** Records what it was asked; refuses ids starting with `bad`. */
class FakeAssetRegistry extends AssetRegistry {
  readonly calls: unknown[][] = [];
  async requireUsable(accountId: string, ids: readonly string[], field?: string): Promise<UsableAsset[]> {
    this.calls.push([accountId, [...ids], field]);
    const bad = ids.findIndex((id) => id.startsWith('bad'));
    if (bad >= 0) throw new AppError('VALIDATION_ERROR', `${field}[${bad}]: not a usable asset`);
    return ids.map((id) => ({ id, name: id, mime: 'audio/wav', size: 1, checksum: '0'.repeat(64) }));
  }
  async open(): Promise<Readable> {
    throw new Error('not used');
  }
  async registerOutput(): Promise<string> {
    throw new Error('not used');
  }
  link(): string {
    throw new Error('not used');
  }
}

class FakeVoiceRegistry extends VoiceRegistry {
  readonly calls: unknown[][] = [];
  async requireUsable(accountId: string, voiceId: string, supplier: string) {
    this.calls.push([accountId, voiceId, supplier]);
    if (voiceId.startsWith('bad')) throw new AppError('VALIDATION_ERROR', 'input.voice_id: not a usable voice');
    return { id: voiceId, supplierVoiceId: 'sv' };
  }
  async register(): Promise<string> {
    throw new Error('not used');
  }
}

describe('IssueQuoteHandler.price (rules 1–8, no storage)', () => {
  const catalogue = Catalogue.load();
  const clock = new FixedClock(new Date('2026-03-01T10:00:00.000Z'));
  let assets: FakeAssetRegistry;
  let voices: FakeVoiceRegistry;
  let handler: IssueQuoteHandler;
  const principal = { accountId: 'acc_1', connectionId: 'key_1' };
  const price = (c: Omit<IssueQuoteCommand, 'principal'>) => handler.price({ principal, ...c });
  const refusal = async (c: Omit<IssueQuoteCommand, 'principal'>): Promise<AppError> => {
    try {
      await price(c);
    } catch (err) {
      if (err instanceof AppError) return err;
      throw err;
    }
    throw new Error('expected a refusal');
  };

  beforeEach(() => {
    assets = new FakeAssetRegistry();
    voices = new FakeVoiceRegistry();
    handler = new IssueQuoteHandler({} as EventStore, catalogue, assets, voices, clock);
  });

  it('prices with defaults applied, exact amounts and a 15-minute expiry', async () => {
    const { terms } = await price({ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'x' }, options: { count: 3 } });
    expect(terms.params).toMatchObject({ prompt: 'x', count: 3, size: '1024x1024', negative_prompt: '', asset_ids: [] });
    expect(terms).toMatchObject({ unit: 'image', quantity: 3, unit_price: '0.200000', estimated_amount: '0.600000', max_amount: '0.600000' });
    expect(terms.expires_at).toBe('2026-03-01T10:15:00.000Z');
    expect(terms.quote_id).toMatch(/^qt_/);
    expect(assets.calls).toEqual([]);
  });

  it("asks the asset registry for the caller's input.asset_ids", async () => {
    await price({ model: 'voice-clone-std', capability: 'voice.clone', input: { asset_ids: ['ast_a'], name: 'Me', consent_attested: true } });
    expect(assets.calls).toEqual([['acc_1', ['ast_a'], 'input.asset_ids']]);
    const err = await refusal({ model: 'voice-clone-std', capability: 'voice.clone', input: { asset_ids: ['bad_1'], name: 'Me', consent_attested: true } });
    expect(err.message).toContain('input.asset_ids[0]');
  });

  it("asks the voice registry for the caller's voice on the model's supplier channel", async () => {
    await price({ model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'hi', voice_id: 'voice_1' } });
    expect(voices.calls).toEqual([['acc_1', 'voice_1', ['local']]]);
    expect((await refusal({ model: 'speech-tts-std', capability: 'speech.synthesize', input: { text: 'hi', voice_id: 'bad' } })).code).toBe('VALIDATION_ERROR');
  });

  it('names the field of every refusal', async () => {
    const cases: [Omit<IssueQuoteCommand, 'principal'>, string, string][] = [
      [{ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x' }, currency: 'USD' }, 'VALIDATION_ERROR', 'currency'],
      [{ model: 'nope', capability: 'text.generate', input: {} }, 'VALIDATION_ERROR', 'model'],
      [{ model: 'text-writer-lite', capability: 'voice.clone', input: {} }, 'VALIDATION_ERROR', 'capability'],
      [{ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x', tone: 'formal' }, options: { tone: 'casual' } }, 'VALIDATION_ERROR', 'options.tone'],
      [{ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x' }, options: { voice_id: 'v' } }, 'VALIDATION_ERROR', 'options.voice_id'],
      [{ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x' }, options: { temperature: 9 } }, 'VALIDATION_ERROR', 'options.temperature'],
      [{ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'x', webhook_url: 'https://x' } }, 'VALIDATION_ERROR', 'input.webhook_url'],
      [{ model: 'voice-clone-std', capability: 'voice.clone', input: { asset_ids: ['ast_a'], name: 'Me' } }, 'VALIDATION_ERROR', 'consent_attested'],
      [{ model: 'image-studio-v2', capability: 'image.generate', input: { prompt: 'x', size: '2048x2048' } }, 'PRICE_UNAVAILABLE', 'size'],
    ];
    for (const [command, code, field] of cases) {
      const err = await refusal(command);
      expect([err.code, err.message]).toEqual([code, expect.stringContaining(field)]);
    }
  });
});
