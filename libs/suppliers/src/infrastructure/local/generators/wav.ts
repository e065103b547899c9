import { createHash } from 'node:crypto';
import { noise, seedOf, sinTurns } from './random';

/** A voice of the built-in speech model: base pitch and brightness. */
export interface LocalVoice {
  readonly f0: number;
  readonly brightness: number;
}

export const DEFAULT_VOICE: LocalVoice = { f0: 150, brightness: 0.5 };

/** Seconds of audio per character at speed 1. */
export const SECONDS_PER_CHARACTER = 0.065;
const MAX_SECONDS = 600;

export interface SpeechParams {
  readonly text: string;
  readonly speed?: number;
  readonly sample_rate?: number;
}

/** Length of the speech for a text: one short segment per character, scaled by speed. */
export function speechDuration(text: string, speed = 1): number {
  const chars = Math.max(1, [...text].length);
  return Math.min(MAX_SECONDS, Math.max(0.3, (chars * SECONDS_PER_CHARACTER) / speed));
}

// Vowel formants (F1, F2) in Hz; other letters are voiced or unvoiced consonants.
const VOWELS: Record<string, [number, number]> = {
  a: [730, 1090], e: [530, 1840], i: [270, 2290], o: [570, 840], u: [300, 870], y: [300, 2000],
};

/**
 * The built-in speech model: 16-bit mono PCM WAV whose length follows the text (one
 * segment per character at `speed`), with vowel-like harmonic tones shaped by formants,
 * noise bursts for consonants and pauses at spaces and punctuation; the voice sets the pitch.
 */
export function synthesizeSpeech(params: SpeechParams, voice: LocalVoice = DEFAULT_VOICE): Buffer {
  const rate = params.sample_rate ?? 24000;
  const speed = params.speed ?? 1;
  const chars = [...params.text];
  if (!chars.length) chars.push(' ');
  const total = Math.round(speechDuration(params.text, speed) * rate);
  const perChar = Math.max(1, Math.floor(total / chars.length));
  const samples = new Int16Array(total);
  const rand = noise(seedOf('speech', params.text, speed, rate, voice));
  // One period of each voiced sound is tabulated per character; the sample loop only looks
  // values up (plain arithmetic, see random.ts).
  const PERIOD = 1024;
  const wave = new Float64Array(PERIOD + 1);
  let phase = 0;
  for (let c = 0; c < chars.length; c++) {
    const start = c * perChar;
    const end = c === chars.length - 1 ? total : Math.min(total, start + perChar);
    const ch = chars[c].toLowerCase();
    const vowel = VOWELS[ch];
    const letter = /\p{L}/u.test(ch);
    const pause = /[\s.,;:!?。，、！？]/u.test(ch) || !letter;
    // Intonation: a slow fall over each sentence-ish span plus a small per-character wobble.
    const f0 = voice.f0 * (1.1 - 0.2 * ((c % 40) / 40)) * (1 + 0.03 * Math.sin(c * 1.7));
    const code = ch.codePointAt(0)!;
    const formants: [number, number] = vowel ?? [400 + (code % 7) * 60, 1200 + (code % 11) * 90];
    const voiced = vowel !== undefined || /[lmnrvwzjgbd]/.test(ch) || (letter && !/[a-z]/.test(ch));
    if (!pause && voiced) {
      const weights: number[] = [];
      for (let k = 1; k <= 10; k++) {
        const f = k * f0;
        weights.push(Math.exp(-(((f - formants[0]) / 200) ** 2)) + 0.7 * Math.exp(-(((f - formants[1]) / 300) ** 2)) + (0.15 * voice.brightness) / k);
      }
      const gain = vowel ? 0.35 : 0.2;
      for (let i = 0; i <= PERIOD; i++) {
        let v = 0;
        for (let k = 1; k <= 10; k++) v += weights[k - 1] * sinTurns((k * i) / PERIOD);
        wave[i] = v * gain;
      }
    }
    const len = end - start > 0 ? end - start : 1;
    const step = f0 / rate;
    for (let i = start; i < end; i++) {
      const pos = (i - start) / len;
      const rise = pos * 8;
      const fall = (1 - pos) * 6;
      const env = (rise < 1 ? rise : 1) * (fall < 1 ? fall : 1);
      let v = 0;
      if (!pause) {
        if (voiced) {
          phase += step;
          if (phase >= 1) phase -= phase | 0;
          v = wave[(phase * PERIOD) | 0];
        } else {
          v = rand() * 0.18;
        }
      }
      let out = v * env;
      out = out > 1 ? 1 : out < -1 ? -1 : out;
      samples[i] = (out * 32767) | 0;
    }
  }
  return wavFile(samples, rate);
}

/** A RIFF/WAVE file with 16-bit mono PCM samples. */
export function wavFile(samples: Int16Array, sampleRate: number): Buffer {
  const dataBytes = samples.length * 2;
  const buf = Buffer.alloc(44 + dataBytes);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + dataBytes, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataBytes, 40);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + i * 2, samples[i], true);
  return buf;
}

export interface DecodedWav {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  /** Mono samples in [-1, 1]. */
  readonly samples: Float32Array;
}

/** Decodes PCM WAV (8/16/24/32-bit integer or 32-bit float); null when it is not one. */
export function decodeWav(buf: Buffer): DecodedWav | null {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') return null;
  let offset = 12;
  let fmt: { format: number; channels: number; sampleRate: number; bits: number } | null = null;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && size >= 16 && body + 16 <= buf.length) {
      fmt = { format: buf.readUInt16LE(body), channels: buf.readUInt16LE(body + 2), sampleRate: buf.readUInt32LE(body + 4), bits: buf.readUInt16LE(body + 14) };
      if (fmt.format === 0xfffe && size >= 40) fmt.format = buf.readUInt16LE(body + 24);
    } else if (id === 'data' && fmt) {
      const { format, channels, bits, sampleRate } = fmt;
      if (!channels || !sampleRate || ![1, 3].includes(format) || ![8, 16, 24, 32].includes(bits) || (format === 3 && bits !== 32)) return null;
      const bytes = bits / 8;
      const end = Math.min(buf.length, body + size);
      const frames = Math.floor((end - body) / (bytes * channels));
      const samples = new Float32Array(frames);
      const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
      for (let f = 0; f < frames; f++) {
        let sum = 0;
        for (let ch = 0; ch < channels; ch++) {
          const at = body + (f * channels + ch) * bytes;
          sum +=
            format === 3 ? view.getFloat32(at, true)
            : bits === 8 ? (view.getUint8(at) - 128) / 128
            : bits === 16 ? view.getInt16(at, true) / 32768
            : bits === 24 ? ((view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getInt8(at + 2) << 16)) / 8388608)
            : view.getInt32(at, true) / 2147483648;
        }
        samples[f] = sum / channels;
      }
      return { sampleRate, channels, bitsPerSample: bits, samples };
    }
    offset = body + size + (size % 2);
  }
  return null;
}

/** Estimated pitch (Hz) of the loudest voiced frames, by autocorrelation; null if silent. */
export function estimatePitch(samples: Float32Array, sampleRate: number): number | null {
  const frame = Math.floor(sampleRate * 0.04);
  if (samples.length < frame) return null;
  const minLag = Math.floor(sampleRate / 400);
  const maxLag = Math.min(frame - 1, Math.ceil(sampleRate / 70));
  const frames: { start: number; energy: number }[] = [];
  const step = Math.max(frame, Math.floor(samples.length / 200));
  for (let start = 0; start + frame <= samples.length; start += step) {
    let e = 0;
    for (let i = start; i < start + frame; i++) e += samples[i] * samples[i];
    frames.push({ start, energy: e / frame });
  }
  frames.sort((a, b) => b.energy - a.energy);
  const loud = frames.filter((f) => f.energy > 1e-6).slice(0, 12);
  const pitches: number[] = [];
  for (const { start } of loud) {
    let best = 0;
    let bestLag = 0;
    let zero = 0;
    for (let i = start; i < start + frame; i++) zero += samples[i] * samples[i];
    for (let lag = minLag; lag <= maxLag; lag++) {
      let sum = 0;
      for (let i = start; i + lag < start + frame; i++) sum += samples[i] * samples[i + lag];
      if (sum > best) {
        best = sum;
        bestLag = lag;
      }
    }
    if (bestLag && best > 0.3 * zero) pitches.push(sampleRate / bestLag);
  }
  if (!pitches.length) return null;
  pitches.sort((a, b) => a - b);
  return pitches[Math.floor(pitches.length / 2)];
}

/** Recognises common audio containers by their signature. */
export function audioKind(buf: Buffer): 'wav' | 'mp3' | 'ogg' | 'flac' | 'mp4' | null {
  if (buf.length >= 12 && buf.toString('ascii', 0, 4) === 'RIFF' && buf.toString('ascii', 8, 12) === 'WAVE') return 'wav';
  if (buf.length >= 3 && buf.toString('ascii', 0, 3) === 'ID3') return 'mp3';
  if (buf.length >= 2 && buf[0] === 0xff && (buf[1] & 0xe0) === 0xe0) return 'mp3';
  if (buf.length >= 4 && buf.toString('ascii', 0, 4) === 'OggS') return 'ogg';
  if (buf.length >= 4 && buf.toString('ascii', 0, 4) === 'fLaC') return 'flac';
  if (buf.length >= 8 && buf.toString('ascii', 4, 8) === 'ftyp') return 'mp4';
  return null;
}

/**
 * Clones a voice from a sample: the pitch of a WAV sample (or, for compressed audio this
 * model cannot decode, one derived from its bytes) and a brightness from its content. The
 * voice id of the local supplier carries the profile: `lv1-<f0>-<b>-<hash>`.
 */
export function cloneVoice(sample: Buffer): { supplierVoiceId: string; voice: LocalVoice } {
  const kind = audioKind(sample);
  if (!kind) throw new Error('the sample is not a recognised audio file');
  const hash = createHash('sha256').update(sample).digest();
  let f0: number | null = null;
  if (kind === 'wav') {
    const wav = decodeWav(sample);
    if (!wav) throw new Error('the WAV sample is not PCM audio this model can read');
    if (wav.samples.length < wav.sampleRate * 0.1) throw new Error('the sample is shorter than 0.1 seconds');
    f0 = estimatePitch(wav.samples, wav.sampleRate);
  }
  if (f0 === null) f0 = 90 + (hash.readUInt16BE(0) % 160);
  const voice: LocalVoice = { f0: Math.round(Math.max(70, Math.min(400, f0))), brightness: (hash[2] % 100) / 100 };
  return { supplierVoiceId: `lv1-${voice.f0}-${Math.round(voice.brightness * 100)}-${hash.toString('hex', 3, 11)}`, voice };
}

/** The profile inside a local supplier voice id; null when it is not one. */
export function voiceFromId(supplierVoiceId: string): LocalVoice | null {
  const m = /^lv1-(\d{2,3})-(\d{1,3})-[0-9a-f]{16}$/.exec(supplierVoiceId);
  return m ? { f0: Number(m[1]), brightness: Number(m[2]) / 100 } : null;
}
