import { PNG } from 'pngjs';
import { generateText, keywordsOf } from './text';
import { parseSize, renderPng } from './png';
import { cloneVoice, decodeWav, estimatePitch, speechDuration, synthesizeSpeech, voiceFromId, wavFile } from './wav';

describe('local text model', () => {
  it('writes UTF-8 prose from the prompt, deterministic, sized by max_tokens', () => {
    const a = generateText({ prompt: 'Lighthouses along the Baltic coast', max_tokens: 200, tone: 'formal' });
    expect(a).toBe(generateText({ prompt: 'Lighthouses along the Baltic coast', max_tokens: 200, tone: 'formal' }));
    expect(a).toContain('Lighthouses');
    expect(a.startsWith('The following text addresses')).toBe(true);
    const words = a.split(/\s+/).filter(Boolean).length;
    expect(words).toBeLessThanOrEqual(150);
    expect(words).toBeGreaterThan(40);
    expect(generateText({ prompt: 'Something else entirely', max_tokens: 200 })).not.toBe(a);
    expect(generateText({ prompt: 'x', max_tokens: 16 }).split(/\s+/).length).toBeLessThan(40);
  });

  it('keeps non-Latin prompts intact', () => {
    const text = generateText({ prompt: '写一首关于秋天的诗', max_tokens: 64 });
    expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text);
    expect(text).toContain('写一首关于秋天的诗');
    expect(keywordsOf('!!!')).toEqual(['!!!']);
  });
});

describe('local image model', () => {
  it('renders a decodable PNG of the requested size', () => {
    const png = renderPng({ prompt: 'a red fox', size: '512x512', seed: 7 });
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const decoded = PNG.sync.read(png);
    expect([decoded.width, decoded.height]).toEqual([512, 512]);
    // not a flat picture
    const colors = new Set<number>();
    for (let i = 0; i < decoded.data.length; i += 4 * 997) colors.add(decoded.data.readUInt32BE(i));
    expect(colors.size).toBeGreaterThan(20);
  });

  it('depends on prompt, seed and index, and is stable for the same input', () => {
    const base = { prompt: 'a red fox', size: '512x512', seed: 7 };
    const a = renderPng(base);
    expect(renderPng(base).equals(a)).toBe(true);
    expect(renderPng({ ...base, prompt: 'a blue whale' }).equals(a)).toBe(false);
    expect(renderPng({ ...base, seed: 8 }).equals(a)).toBe(false);
    expect(renderPng(base, 1).equals(a)).toBe(false);
  });

  it('reads sizes', () => {
    expect(parseSize('1024x1024')).toEqual({ width: 1024, height: 1024 });
    expect(parseSize('2048x512')).toEqual({ width: 2048, height: 512 });
    expect(parseSize(undefined)).toEqual({ width: 1024, height: 1024 });
  });
});

describe('local speech model', () => {
  it('writes a valid PCM WAV whose duration follows the text and sample rate', () => {
    const text = 'Hello there, this is a test of the speech model.';
    const wav = synthesizeSpeech({ text, sample_rate: 16000, speed: 1 });
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect(wav.readUInt16LE(20)).toBe(1); // PCM
    expect(wav.readUInt16LE(22)).toBe(1); // mono
    expect(wav.readUInt32LE(24)).toBe(16000);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.toString('ascii', 36, 40)).toBe('data');
    const decoded = decodeWav(wav)!;
    expect(decoded.sampleRate).toBe(16000);
    const seconds = decoded.samples.length / decoded.sampleRate;
    expect(seconds).toBeCloseTo(speechDuration(text), 2);
    expect(seconds).toBeCloseTo(text.length * 0.065, 1);
    const peak = decoded.samples.reduce((m, s) => Math.max(m, Math.abs(s)), 0);
    expect(peak).toBeGreaterThan(0.05);
    const longer = decodeWav(synthesizeSpeech({ text: text + text, sample_rate: 24000, speed: 2 }))!;
    expect(longer.sampleRate).toBe(24000);
    expect(longer.samples.length / 24000).toBeCloseTo(seconds, 1); // twice the text at twice the speed
  });

  it('speaks at the pitch of the voice', () => {
    const low = decodeWav(synthesizeSpeech({ text: 'aaaa aaaa aaaa', sample_rate: 24000 }, { f0: 110, brightness: 0.5 }))!;
    const high = decodeWav(synthesizeSpeech({ text: 'aaaa aaaa aaaa', sample_rate: 24000 }, { f0: 220, brightness: 0.5 }))!;
    expect(estimatePitch(low.samples, 24000)).toBeGreaterThan(95);
    expect(estimatePitch(low.samples, 24000)).toBeLessThan(130);
    expect(estimatePitch(high.samples, 24000)).toBeGreaterThan(190);
    expect(estimatePitch(high.samples, 24000)).toBeLessThan(250);
  });
});

describe('local voice cloning', () => {
  const tone = (hz: number, seconds = 1, rate = 16000) => {
    const s = new Int16Array(rate * seconds);
    for (let i = 0; i < s.length; i++) s[i] = Math.round(12000 * Math.sin((2 * Math.PI * hz * i) / rate) + 4000 * Math.sin((4 * Math.PI * hz * i) / rate));
    return wavFile(s, rate);
  };

  it('takes the pitch of a WAV sample into the voice id', () => {
    const { supplierVoiceId, voice } = cloneVoice(tone(180));
    expect(voice.f0).toBeGreaterThan(170);
    expect(voice.f0).toBeLessThan(190);
    expect(voiceFromId(supplierVoiceId)).toEqual(voice);
    expect(cloneVoice(tone(180)).supplierVoiceId).toBe(supplierVoiceId);
  });

  it('accepts compressed audio it cannot decode and refuses non-audio', () => {
    const mp3 = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(200, 7)]);
    expect(voiceFromId(cloneVoice(mp3).supplierVoiceId)).not.toBeNull();
    expect(() => cloneVoice(Buffer.from('hello, not audio'))).toThrow(/not a recognised audio/);
    expect(() => cloneVoice(wavFile(new Int16Array(10), 16000))).toThrow(/shorter/);
    expect(voiceFromId('acme-123')).toBeNull();
  });
});
