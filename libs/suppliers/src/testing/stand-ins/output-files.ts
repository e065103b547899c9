import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import type { StandInOutput } from './provider-stand-in';

/** An output file a stand-in serves: real bytes of its kind, streamed (never held whole when large). */
export interface StandInFile {
  readonly contentType: string;
  /** The file name extension, without the dot. */
  readonly ext: string;
  /** The exact number of bytes `open()` streams. */
  readonly size: number;
  open(): Readable;
}

type FileKind = Exclude<StandInOutput, { kind: 'text' }>['kind'];

/** Filler bytes are streamed from this one block of zeros. */
const ZEROS = Buffer.alloc(64 * 1024);

function* zeros(n: number): Generator<Buffer> {
  for (let left = n; left > 0; left -= ZEROS.length) yield left >= ZEROS.length ? ZEROS : ZEROS.subarray(0, left);
}

const u32be = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const u32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

/** A 2×2 opaque PNG written by pngjs: signature, IHDR, IDAT, IEND. */
function smallPng(): Buffer {
  const png = new PNG({ width: 2, height: 2 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([40, 120, 200, 255], i);
  return PNG.sync.write(png);
}

/**
 * A PNG of `bytes` bytes: the small PNG with a private ancillary chunk (`prVt`, which
 * decoders skip) of zeros before IEND; the chunk's CRC is computed while streaming.
 */
function png(bytes: number | undefined): StandInFile {
  const base = smallPng();
  const pad = bytes === undefined ? -1 : bytes - base.length - 12;
  if (pad < 0) return fixed(base, 'image/png', 'png');
  const iend = base.subarray(base.length - 12);
  const body = base.subarray(0, base.length - 12);
  return {
    contentType: 'image/png',
    ext: 'png',
    size: base.length + 12 + pad,
    open: () =>
      Readable.from(
        (function* () {
          yield body;
          const type = Buffer.from('prVt', 'latin1');
          yield Buffer.concat([u32be(pad), type]);
          let crc = crc32(type);
          for (const chunk of zeros(pad)) {
            crc = crc32(chunk, crc);
            yield chunk;
          }
          yield u32be(crc >>> 0);
          yield iend;
        })(),
      ),
  };
}

/** JPEG: SOI, a JFIF APP0 segment, comment segments of zeros up to the size, EOI. */
function jpeg(bytes: number | undefined): StandInFile {
  const head = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const eoi = Buffer.from([0xff, 0xd9]);
  const minimal = head.length + eoi.length;
  const pad = bytes === undefined ? 0 : Math.max(0, bytes - minimal);
  // Each COM segment is FF FE, a two-byte length (itself included) and up to 65,533 bytes.
  const segments: number[] = [];
  for (let left = pad; left >= 4; ) {
    const data = Math.min(65_533, left - 4);
    segments.push(data);
    left -= data + 4;
  }
  const size = minimal + segments.reduce((s, d) => s + d + 4, 0);
  return {
    contentType: 'image/jpeg',
    ext: 'jpg',
    size,
    open: () =>
      Readable.from(
        (function* () {
          yield head;
          for (const data of segments) {
            yield Buffer.from([0xff, 0xfe, (data + 2) >> 8, (data + 2) & 0xff]);
            yield* zeros(data);
          }
          yield eoi;
        })(),
      ),
  };
}

/** WebP: RIFF/WEBP with a 1×1 lossless VP8L image, then a `JUNK` chunk of zeros up to the size. */
function webp(bytes: number | undefined): StandInFile {
  const vp8l = Buffer.from([0x56, 0x50, 0x38, 0x4c, 0x0d, 0x00, 0x00, 0x00, 0x2f, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0x00]);
  const minimal = 12 + vp8l.length;
  let pad = bytes === undefined ? -1 : bytes - minimal - 8;
  if (pad >= 0 && pad % 2 === 1) pad--; // RIFF chunks have even sizes
  const size = minimal + (pad >= 0 ? 8 + pad : 0);
  return {
    contentType: 'image/webp',
    ext: 'webp',
    size,
    open: () =>
      Readable.from(
        (function* () {
          yield Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(size - 8), Buffer.from('WEBP', 'latin1'), vp8l]);
          if (pad >= 0) {
            yield Buffer.concat([Buffer.from('JUNK', 'latin1'), u32le(pad)]);
            yield* zeros(pad);
          }
        })(),
      ),
  };
}

/** MP4: an `ftyp` box (isom) and a `free` box of zeros up to the size. */
function mp4(bytes: number | undefined): StandInFile {
  const ftyp = Buffer.concat([u32be(24), Buffer.from('ftypisom', 'latin1'), u32be(0x200), Buffer.from('isommp41', 'latin1')]);
  const free = Math.max(8, (bytes ?? 0) - ftyp.length);
  return {
    contentType: 'video/mp4',
    ext: 'mp4',
    size: ftyp.length + free,
    open: () =>
      Readable.from(
        (function* () {
          yield ftyp;
          yield Buffer.concat([u32be(free), Buffer.from('free', 'latin1')]);
          yield* zeros(free - 8);
        })(),
      ),
  };
}

/** WAV: a 44-byte RIFF/WAVE header (PCM, 16-bit mono, 8 kHz) and silence (0.1 s, or up to the size). */
function wav(bytes: number | undefined): StandInFile {
  const data = Math.max(0, (bytes ?? 44 + 1600) - 44) & ~1;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16_000, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data, 40);
  return {
    contentType: 'audio/wav',
    ext: 'wav',
    size: 44 + data,
    open: () =>
      Readable.from(
        (function* () {
          yield header;
          yield* zeros(data);
        })(),
      ),
  };
}

/** MP3: MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz, 417 bytes each) of silence; three, or up to the size. */
function mp3(bytes: number | undefined): StandInFile {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  const frames = Math.max(1, Math.floor((bytes ?? 3 * frame.length) / frame.length));
  return {
    contentType: 'audio/mpeg',
    ext: 'mp3',
    size: frames * frame.length,
    open: () =>
      Readable.from(
        (function* () {
          for (let i = 0; i < frames; i++) yield frame;
        })(),
      ),
  };
}

function fixed(body: Buffer, contentType: string, ext: string): StandInFile {
  return { contentType, ext, size: body.length, open: () => Readable.from([body]) };
}

const MAKERS: Record<Exclude<FileKind, 'raw'>, (bytes: number | undefined) => StandInFile> = { png, jpeg, webp, mp4, wav, mp3 };

/** The bytes a stand-in serves for one non-text output. */
export function standInFile(output: Exclude<StandInOutput, { kind: 'text' }>): StandInFile {
  if (output.kind === 'raw') return fixed(output.body, output.contentType, 'bin');
  return MAKERS[output.kind](output.bytes);
}

/** The usual output of a provider model, guessed from its name (tests pass outputs explicitly when it matters). */
export function usualOutput(model: string): StandInOutput {
  const m = model.toLowerCase();
  if (/video|kling|veo|wan-|wan\/|hunyuan-video|minimax|luma|ltx|seedance/.test(m)) return { kind: 'mp4' };
  if (/tts|speech|audio|music|voice|sound|whisper/.test(m)) return { kind: 'mp3' };
  if (/llama|gpt|claude|llm|chat|instruct|mistral|qwen|gemma|deepseek/.test(m)) return { kind: 'text', text: 'A short answer from the stand-in.' };
  return { kind: 'png' };
}
