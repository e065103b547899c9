import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';
import { AppError } from '@gensvc/kernel';
import { JsonSyntaxChecker } from '../domain/json-syntax';
import { isAcceptedMime, isTextMime, type AcceptedMime } from '../domain/media-types';

/** Bytes looked at to recognise a file signature (ID3 tags of MP3s can be long). */
export const SIGNATURE_SAMPLE_BYTES = 64 * 1024;

type FileTypeModule = typeof import('file-type/core');
let fileTypeModule: Promise<FileTypeModule> | undefined;

/**
 * file-type is ESM-only. Under our CommonJS build `import()` compiles to `require()`, which
 * Node ≥ 20.19 serves for ES modules (require(esm)); Jest's babel transform does the same.
 */
export function loadFileType(): Promise<FileTypeModule> {
  fileTypeModule ??= import('file-type/core');
  return fileTypeModule;
}

/** The media type recognised from a file's first bytes, or undefined (text has no signature). */
export async function recogniseType(sample: Uint8Array): Promise<string | undefined> {
  const { fileTypeFromBuffer } = await loadFileType();
  return (await fileTypeFromBuffer(sample))?.mime;
}

/**
 * The byte-order mark of UTF-16 or UTF-32 text, or null. Such a file is text in another
 * encoding, never a media file, although FF FE also reads as an MPEG audio frame header.
 */
export function foreignTextBom(sample: Uint8Array): 'UTF-16' | 'UTF-32' | null {
  const [a, b, c, d] = sample;
  if (a === 0xff && b === 0xfe) return c === 0 && d === 0 && sample.length >= 4 ? 'UTF-32' : 'UTF-16';
  if (a === 0xfe && b === 0xff) return 'UTF-16';
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'UTF-32';
  return null;
}

/** Recognised types that are still text (a text file may look like one of these). */
const TEXTUAL = (mime: string) => mime.startsWith('text/') || ['application/json', 'application/xml', 'image/svg+xml'].includes(mime);

export type InspectionTarget =
  /** The caller declared the type (and for prepared uploads the size and SHA-256). */
  | { readonly mode: 'declared'; readonly mime: AcceptedMime; readonly size?: number; readonly checksum?: string }
  /** Imports: the type is recognised; `hint` is the remote Content-Type essence. */
  | { readonly mode: 'detect'; readonly hint: string | null };

export interface InspectionResult {
  readonly size: number;
  /** SHA-256, lowercase hex. */
  readonly checksum: string;
  readonly mime: AcceptedMime;
}

/**
 * A pass-through stream that checks a file while it flows to storage: size (against the
 * limit and the declared size), SHA-256, the real type from the file signature, UTF-8 for
 * text and JSON syntax for JSON. It fails the stream with the CONTRACT code as soon as a
 * rule is broken, so nothing invalid is ever committed; memory stays constant.
 */
export class ContentInspector extends Transform {
  private size = 0;
  private readonly hash: Hash = createHash('sha256');
  private sample: Buffer[] = [];
  private sampleBytes = 0;
  private typeKnown = false;
  /** The type decided so far (declared, or recognised in detect mode). */
  private mime: AcceptedMime | undefined;
  private decoder: TextDecoder | undefined;
  private json: JsonSyntaxChecker | undefined;
  private outcome: InspectionResult | undefined;
  private pendingTextError: AppError | undefined;

  constructor(
    private readonly target: InspectionTarget,
    private readonly maxBytes: number,
  ) {
    super({ highWaterMark: 64 * 1024 });
    if (target.mode === 'declared') {
      this.mime = target.mime;
      if (isTextMime(target.mime)) this.decoder = new TextDecoder('utf-8', { fatal: true });
      if (target.mime === 'application/json') this.json = new JsonSyntaxChecker();
    } else {
      // Until the signature says otherwise the file may be text: decode from the first byte.
      this.decoder = new TextDecoder('utf-8', { fatal: true });
      if (target.hint === 'application/json') this.json = new JsonSyntaxChecker();
    }
  }

  /** The checked facts; only after the stream finished without error. */
  result(): InspectionResult {
    if (!this.outcome) throw new Error('inspection has not finished');
    return this.outcome;
  }

  /** Bytes seen so far. */
  get bytesSeen(): number {
    return this.size;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(new AppError('PAYLOAD_TOO_LARGE', `the file is larger than ${this.maxBytes} bytes`));
    if (this.target.mode === 'declared' && this.target.size !== undefined && this.size > this.target.size) {
      return done(new AppError('PAYLOAD_TOO_LARGE', `more bytes arrived than the declared size of ${this.target.size}`));
    }
    this.hash.update(chunk);
    const err = this.checkText(chunk, false);
    if (err) return done(err);
    if (!this.typeKnown) {
      this.sample.push(chunk);
      this.sampleBytes += chunk.length;
      if (this.sampleBytes >= SIGNATURE_SAMPLE_BYTES) {
        this.decideType().then(
          () => done(null, chunk),
          (e: unknown) => done(e as Error),
        );
        return;
      }
    }
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    (async () => {
      if (this.target.mode === 'declared' && this.target.size !== undefined && this.size !== this.target.size) {
        throw new AppError('SIZE_MISMATCH', `${this.size} bytes arrived, the declared size is ${this.target.size}`);
      }
      if (this.size === 0) throw new AppError('VALIDATION_ERROR', 'body: the file is empty (at least 1 byte)');
      if (!this.typeKnown) await this.decideType();
      const err = this.checkText(Buffer.alloc(0), true);
      if (err) throw err;
      const checksum = this.hash.digest('hex');
      if (this.target.mode === 'declared' && this.target.checksum !== undefined && checksum !== this.target.checksum) {
        throw new AppError('CHECKSUM_MISMATCH', 'the SHA-256 of the bytes does not match the declared checksum');
      }
      this.outcome = { size: this.size, checksum, mime: this.mime! };
    })().then(
      () => done(),
      (e: unknown) => done(e as Error),
    );
  }

  /**
   * Feeds the text checks (`final`: the file ended). Before the signature is known a text
   * error is held back: a binary file is reported as the wrong type, not as bad text.
   */
  private checkText(chunk: Buffer, final: boolean): AppError | undefined {
    if (!this.decoder || this.pendingTextError) return this.typeKnown ? this.pendingTextError : undefined;
    let error: AppError | undefined;
    try {
      const text = this.decoder.decode(chunk, { stream: !final });
      const problem = this.json ? (this.json.push(text) ?? (final ? this.json.end() : null)) : null;
      if (problem) error = new AppError('INVALID_JSON', `the file is not valid JSON: ${problem}`);
    } catch {
      error = this.json
        ? new AppError('INVALID_JSON', 'the file is not valid JSON: it is not UTF-8')
        : new AppError('INVALID_TEXT', 'the file is not valid UTF-8 text');
    }
    if (!error) return undefined;
    this.pendingTextError = error;
    return this.typeKnown ? error : undefined;
  }

  private async decideType(): Promise<void> {
    const sample = Buffer.concat(this.sample, this.sampleBytes).subarray(0, SIGNATURE_SAMPLE_BYTES);
    this.sample = [];
    this.typeKnown = true;
    const bom = foreignTextBom(sample);
    const textual = this.target.mode === 'declared' ? isTextMime(this.target.mime) : this.target.hint === null || this.target.hint === 'application/octet-stream' || TEXTUAL(this.target.hint);
    if (bom && textual) {
      // Text, only not UTF-8: say so, rather than calling it the audio file its first bytes resemble.
      const json = this.target.mode === 'declared' ? this.target.mime === 'application/json' : this.target.hint === 'application/json';
      throw json
        ? new AppError('INVALID_JSON', `the file is not valid JSON: it is ${bom} text, not UTF-8`)
        : new AppError('INVALID_TEXT', `the file is ${bom} text; text must be UTF-8`);
    }
    const recognised = await recogniseType(sample);
    if (this.target.mode === 'declared') {
      const declared = this.target.mime;
      if (isTextMime(declared)) {
        if (recognised && !TEXTUAL(recognised)) {
          throw new AppError('FILE_TYPE_MISMATCH', `the file is ${recognised}, not ${declared}`);
        }
        if (this.pendingTextError) throw this.pendingTextError;
      } else if (recognised !== declared) {
        throw new AppError('FILE_TYPE_MISMATCH', recognised ? `the file is ${recognised}, not ${declared}` : `the file is not ${declared} (no ${declared} signature)`);
      }
      return;
    }
    const hint = this.target.hint;
    if (recognised && !TEXTUAL(recognised)) {
      if (!isAcceptedMime(recognised)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `the file is ${recognised}, which is not accepted`);
      if (hint && hint !== recognised && (isAcceptedMime(hint) || hint.startsWith('text/'))) {
        throw new AppError('FILE_TYPE_MISMATCH', `the server calls the file ${hint}, but it is ${recognised}`);
      }
      this.mime = recognised;
      this.decoder = undefined;
      this.json = undefined;
      this.pendingTextError = undefined;
      return;
    }
    if (this.pendingTextError && hint !== 'application/json' && hint !== 'text/plain') {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the file is neither one of the accepted media types nor UTF-8 text');
    }
    // No binary signature: text. JSON when the server says so, plain text otherwise.
    if (hint === 'application/json') this.mime = 'application/json';
    else if (hint === null || hint === 'text/plain' || hint === 'application/octet-stream') this.mime = 'text/plain';
    else if (isAcceptedMime(hint)) throw new AppError('FILE_TYPE_MISMATCH', `the server calls the file ${hint}, but it has no ${hint} signature`);
    else throw new AppError('UNSUPPORTED_MEDIA_TYPE', `the file is ${hint}, which is not accepted`);
    if (this.pendingTextError) throw this.pendingTextError;
  }
}
