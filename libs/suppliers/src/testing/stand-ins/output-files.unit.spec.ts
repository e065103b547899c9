import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import { standInFile, usualOutput } from './output-files';

async function read(stream: Readable, limit = Infinity): Promise<{ bytes: Buffer; size: number }> {
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = chunk as Buffer;
    if (size < limit) kept.push(b.subarray(0, Math.max(0, limit - size)));
    size += b.length;
  }
  return { bytes: Buffer.concat(kept), size };
}

const recognise = async (sample: Buffer) => (await (await import('file-type/core')).fileTypeFromBuffer(sample))?.mime;

describe('stand-in output files', () => {
  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['webp', 'image/webp'],
    ['mp4', 'video/mp4'],
    ['wav', 'audio/wav'],
    ['mp3', 'audio/mpeg'],
  ] as const)('serves a %s the file-type recogniser reads as %s, small or padded to a size', async (kind, mime) => {
    for (const bytes of [undefined, 300_000]) {
      const file = standInFile({ kind, ...(bytes ? { bytes } : {}) });
      const { bytes: head, size } = await read(file.open(), 64 * 1024);
      expect(size).toBe(file.size);
      expect(file.contentType).toBe(mime);
      expect(await recognise(head)).toBe(mime);
      if (bytes) expect(Math.abs(file.size - bytes)).toBeLessThan(420); // exact but for the kind's framing
    }
  });

  it('writes PNGs a decoder reads, CRCs included, however large', async () => {
    for (const bytes of [undefined, 1_000_000]) {
      const file = standInFile({ kind: 'png', ...(bytes ? { bytes } : {}) });
      const { bytes: all } = await read(file.open());
      const png = PNG.sync.read(all, { checkCRC: true });
      if (bytes) {
        expect(all.length).toBe(bytes);
        // pngjs skips unknown ancillary chunks unchecked: check the padding chunk's CRC here.
        const at = all.indexOf('prVt', 0, 'latin1');
        const length = all.readUInt32BE(at - 4);
        expect(all.readUInt32BE(at + 4 + length)).toBe(crc32(all.subarray(at, at + 4 + length)));
      }
      expect([png.width, png.height]).toEqual([2, 2]);
    }
  });

  it('writes a WAV header that matches its length', async () => {
    const file = standInFile({ kind: 'wav', bytes: 10_044 });
    const { bytes } = await read(file.open());
    expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
    expect(bytes.toString('latin1', 8, 12)).toBe('WAVE');
    expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44);
  });

  it('streams a large file in small chunks without building it', async () => {
    const file = standInFile({ kind: 'mp4', bytes: 64 * 1024 * 1024 });
    let largest = 0;
    let size = 0;
    for await (const chunk of file.open()) {
      largest = Math.max(largest, (chunk as Buffer).length);
      size += (chunk as Buffer).length;
    }
    expect(size).toBe(64 * 1024 * 1024);
    expect(largest).toBeLessThanOrEqual(64 * 1024);
  });

  it('serves raw bytes as given', async () => {
    const file = standInFile({ kind: 'raw', body: Buffer.from('<html></html>'), contentType: 'image/png' });
    expect(file.contentType).toBe('image/png');
    expect((await read(file.open())).bytes.toString()).toBe('<html></html>');
  });

  it("guesses a model's usual output from its name", () => {
    expect(usualOutput('black-forest-labs/flux-schnell').kind).toBe('png');
    expect(usualOutput('fal-ai/kling-video/v2.1/master/text-to-video').kind).toBe('mp4');
    expect(usualOutput('fal-ai/playai/tts/v3').kind).toBe('mp3');
    expect(usualOutput('meta/meta-llama-3-8b-instruct').kind).toBe('text');
  });
});
