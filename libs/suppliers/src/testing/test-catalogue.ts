import { Catalogue } from '@gensvc/catalogue/contracts';

/**
 * The default catalogue plus three models served by an external HTTP channel (for tests):
 * `<channel>-writer` (text.generate), `<channel>-tts` (speech.synthesize with voice_id) and
 * `<channel>-voice-clone` (voice.clone).
 */
export function catalogueWithHttpChannel(channel = 'acme'): string {
  const base = Catalogue.load();
  const models = base.models().map((m) => structuredClone(m) as unknown as Record<string, unknown> & { id: string; name: string });
  const copy = (id: string, from: string, supplierModel: string) => {
    const m = models.find((x) => x.id === from)!;
    return { ...structuredClone(m), id, name: `${m.name} (${channel})`, supplier: channel, supplier_model: supplierModel, resolved_model: `${id}-2026-11-01` };
  };
  models.push(
    copy(`${channel}-writer`, 'text-writer-lite', `${channel}-text-large`),
    copy(`${channel}-tts`, 'speech-tts-std', `${channel}-tts-hd`),
    copy(`${channel}-voice-clone`, 'voice-clone-std', `${channel}-clone-v3`),
  );
  return JSON.stringify({ version: 'test-http-1', currency: 'CNY', models }, null, 2);
}
