import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ContentInspector, type InspectionTarget } from './content-inspector';

const fixture = (name: string) => readFileSync(join(__dirname, '../../../../test/fixtures', name));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function inspect(bytes: Buffer, target: InspectionTarget, max = 1 << 26, chunk = 1000) {
  const inspector = new ContentInspector(target, max);
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) pieces.push(bytes.subarray(i, i + chunk));
  let passed = 0;
  await pipeline(Readable.from(pieces), inspector, new Writable({ write: (c: Buffer, _e, cb) => ((passed += c.length), cb()) }));
  return { ...inspector.result(), passed };
}
const code = (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: string }) => e.code ?? String(e));

const FILES: [string, string][] = [
  ['image.png', 'image/png'],
  ['image.jpg', 'image/jpeg'],
  ['image.webp', 'image/webp'],
  ['audio.wav', 'audio/wav'],
  ['audio.mp3', 'audio/mpeg'],
  ['video.mp4', 'video/mp4'],
  ['text.txt', 'text/plain'],
  ['data.json', 'application/json'],
];

describe('ContentInspector', () => {
  it.each(FILES)('accepts %s as %s with its size and SHA-256, passing every byte on', async (file, mime) => {
    const bytes = fixture(file);
    const r = await inspect(bytes, { mode: 'declared', mime: mime as never, size: bytes.length, checksum: sha(bytes) }, 1 << 26, 7);
    expect(r).toEqual({ size: bytes.length, checksum: sha(bytes), mime, passed: bytes.length });
  });

  it.each(FILES)('recognises %s as %s in detect mode', async (file, mime) => {
    const hint = mime === 'application/json' ? 'application/json' : null;
    expect((await inspect(fixture(file), { mode: 'detect', hint })).mime).toBe(mime);
  });

  it('refuses a file whose signature is another type, whatever Content-Type said', async () => {
    const png = fixture('image.png');
    expect(await code(inspect(png, { mode: 'declared', mime: 'image/jpeg' }))).toBe('FILE_TYPE_MISMATCH');
    expect(await code(inspect(png, { mode: 'declared', mime: 'text/plain' }))).toBe('FILE_TYPE_MISMATCH');
    expect(await code(inspect(png, { mode: 'declared', mime: 'application/json' }))).toBe('FILE_TYPE_MISMATCH');
    expect(await code(inspect(fixture('text.txt'), { mode: 'declared', mime: 'audio/wav' }))).toBe('FILE_TYPE_MISMATCH');
  });

  it('refuses invalid UTF-8 text and invalid JSON', async () => {
    expect(await code(inspect(Buffer.from([0x68, 0x69, 0xc3, 0x28]), { mode: 'declared', mime: 'text/plain' }))).toBe('INVALID_TEXT');
    expect(await code(inspect(Buffer.from('{"a": 1,}'), { mode: 'declared', mime: 'application/json' }))).toBe('INVALID_JSON');
    expect(await code(inspect(Buffer.from('{"a": "\xff"}', 'latin1'), { mode: 'declared', mime: 'application/json' }))).toBe('INVALID_JSON');
    // A multi-byte character split across chunks is fine.
    expect((await inspect(Buffer.from('ééééé'), { mode: 'declared', mime: 'text/plain' }, 1 << 20, 1)).size).toBe(10);
  });

  it('refuses size and checksum mismatches', async () => {
    const b = fixture('image.png');
    expect(await code(inspect(b, { mode: 'declared', mime: 'image/png', size: b.length + 1 }))).toBe('SIZE_MISMATCH');
    expect(await code(inspect(b, { mode: 'declared', mime: 'image/png', size: b.length - 1 }))).toBe('PAYLOAD_TOO_LARGE');
    expect(await code(inspect(b, { mode: 'declared', mime: 'image/png', size: b.length, checksum: 'a'.repeat(64) }))).toBe('CHECKSUM_MISMATCH');
  });

  it('stops at the size limit', async () => {
    expect(await code(inspect(Buffer.alloc(5000, 0x61), { mode: 'declared', mime: 'text/plain' }, 4096))).toBe('PAYLOAD_TOO_LARGE');
  });

  it('recognises types after a long text-like prefix only within the sample; large text streams through', async () => {
    const text = Buffer.from('line of text\n'.repeat(20_000));
    const r = await inspect(text, { mode: 'declared', mime: 'text/plain', size: text.length, checksum: sha(text) }, 1 << 26, 16 * 1024);
    expect(r.size).toBe(text.length);
  });

  it('detect mode: honours the server hint only when the bytes agree', async () => {
    expect(await code(inspect(fixture('image.png'), { mode: 'detect', hint: 'image/jpeg' }))).toBe('FILE_TYPE_MISMATCH');
    expect(await code(inspect(fixture('text.txt'), { mode: 'detect', hint: 'image/png' }))).toBe('FILE_TYPE_MISMATCH');
    expect(await code(inspect(fixture('text.txt'), { mode: 'detect', hint: 'text/html' }))).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await code(inspect(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), { mode: 'detect', hint: null }))).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await code(inspect(Buffer.from([0x80, 0x81, 0x00, 0x01, 0xc0]), { mode: 'detect', hint: null }))).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await code(inspect(Buffer.from('not json'), { mode: 'detect', hint: 'application/json' }))).toBe('INVALID_JSON');
    expect((await inspect(fixture('image.png'), { mode: 'detect', hint: 'application/octet-stream' })).mime).toBe('image/png');
  });

  it('refuses an empty body', async () => {
    expect(await code(inspect(Buffer.alloc(0), { mode: 'declared', mime: 'text/plain' }))).toBe('VALIDATION_ERROR');
  });
});
