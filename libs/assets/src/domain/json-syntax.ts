/**
 * Incremental JSON syntax check (RFC 8259, what `JSON.parse` accepts) over text that
 * arrives in pieces, in constant memory apart from one bit per nesting level: a file is
 * checked while it streams, never held whole. `push` text, then `end()`; both return an
 * error message, or null while the text is still valid.
 */
const enum S {
  Value,
  ValueOrArrayEnd,
  KeyOrObjectEnd,
  Key,
  Colon,
  AfterValue,
  Done,
  String,
  StringEscape,
  StringUnicode,
  NumMinus,
  NumZero,
  NumInt,
  NumDot,
  NumFrac,
  NumE,
  NumESign,
  NumExp,
  Literal,
}

const WS = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const DIGIT = (c: number) => c >= 0x30 && c <= 0x39;
const HEX = (c: number) => DIGIT(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const PLAIN_STRING = /[^"\\\u0000-\u001f]*/y;

export const MAX_JSON_DEPTH = 1_000_000;

export class JsonSyntaxChecker {
  private state: S = S.Value;
  /** Bit per level: 1 = object, 0 = array. */
  private stack = new Uint8Array(64);
  private depth = 0;
  private stringIsKey = false;
  private hexLeft = 0;
  private literal = '';
  private literalPos = 0;
  private offset = 0;
  private error: string | null = null;

  push(text: string): string | null {
    if (this.error) return this.error;
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (this.state === S.String) {
        PLAIN_STRING.lastIndex = i;
        PLAIN_STRING.test(text);
        i = PLAIN_STRING.lastIndex;
        if (i >= n) break;
      }
      const c = text.charCodeAt(i);
      if (!this.step(c)) {
        this.error ??= `invalid JSON at character ${this.offset + i + 1}`;
        return this.error;
      }
      // A number or literal ends at the character after it, which is then read again.
      if (!this.reconsume) i++;
      this.reconsume = false;
    }
    this.offset += n;
    return null;
  }

  end(): string | null {
    if (this.error) return this.error;
    switch (this.state) {
      case S.Done:
        return null;
      case S.NumZero:
      case S.NumInt:
      case S.NumFrac:
      case S.NumExp:
        if (this.depth === 0) return null;
        break;
      case S.Value:
        if (this.depth === 0) return (this.error = 'empty JSON document');
        break;
      default:
        break;
    }
    return (this.error = 'JSON document ends early');
  }

  private reconsume = false;

  private step(c: number): boolean {
    switch (this.state) {
      case S.Value:
      case S.ValueOrArrayEnd:
        if (WS(c)) return true;
        if (c === 0x5d && this.state === S.ValueOrArrayEnd) return this.close(0);
        return this.startValue(c);
      case S.KeyOrObjectEnd:
        if (WS(c)) return true;
        if (c === 0x7d) return this.close(1);
        if (c !== 0x22) return false;
        this.stringIsKey = true;
        this.state = S.String;
        return true;
      case S.Key:
        if (WS(c)) return true;
        if (c !== 0x22) return false;
        this.stringIsKey = true;
        this.state = S.String;
        return true;
      case S.Colon:
        if (WS(c)) return true;
        if (c !== 0x3a) return false;
        this.state = S.Value;
        return true;
      case S.AfterValue:
        if (WS(c)) return true;
        if (c === 0x2c) {
          this.state = this.top() === 1 ? S.Key : S.Value;
          return true;
        }
        if (c === 0x5d) return this.close(0);
        if (c === 0x7d) return this.close(1);
        return false;
      case S.Done:
        return WS(c);
      case S.String:
        if (c === 0x22) {
          if (this.stringIsKey) {
            this.stringIsKey = false;
            this.state = S.Colon;
          } else this.valueEnded();
          return true;
        }
        if (c === 0x5c) {
          this.state = S.StringEscape;
          return true;
        }
        return c >= 0x20;
      case S.StringEscape:
        if (c === 0x75) {
          this.hexLeft = 4;
          this.state = S.StringUnicode;
          return true;
        }
        if ([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].includes(c)) {
          this.state = S.String;
          return true;
        }
        return false;
      case S.StringUnicode:
        if (!HEX(c)) return false;
        if (--this.hexLeft === 0) this.state = S.String;
        return true;
      case S.NumMinus:
        if (c === 0x30) this.state = S.NumZero;
        else if (DIGIT(c)) this.state = S.NumInt;
        else return false;
        return true;
      case S.NumZero:
        if (c === 0x2e) this.state = S.NumDot;
        else if (c === 0x65 || c === 0x45) this.state = S.NumE;
        else return this.numberEnded();
        return true;
      case S.NumInt:
        if (DIGIT(c)) return true;
        if (c === 0x2e) this.state = S.NumDot;
        else if (c === 0x65 || c === 0x45) this.state = S.NumE;
        else return this.numberEnded();
        return true;
      case S.NumDot:
        if (!DIGIT(c)) return false;
        this.state = S.NumFrac;
        return true;
      case S.NumFrac:
        if (DIGIT(c)) return true;
        if (c === 0x65 || c === 0x45) {
          this.state = S.NumE;
          return true;
        }
        return this.numberEnded();
      case S.NumE:
        if (c === 0x2b || c === 0x2d) this.state = S.NumESign;
        else if (DIGIT(c)) this.state = S.NumExp;
        else return false;
        return true;
      case S.NumESign:
        if (!DIGIT(c)) return false;
        this.state = S.NumExp;
        return true;
      case S.NumExp:
        if (DIGIT(c)) return true;
        return this.numberEnded();
      case S.Literal:
        if (c !== this.literal.charCodeAt(this.literalPos)) return false;
        if (++this.literalPos === this.literal.length) this.valueEnded();
        return true;
      default:
        return false;
    }
  }

  private startValue(c: number): boolean {
    switch (c) {
      case 0x7b:
        if (!this.open(1)) return false;
        this.state = S.KeyOrObjectEnd;
        return true;
      case 0x5b:
        if (!this.open(0)) return false;
        this.state = S.ValueOrArrayEnd;
        return true;
      case 0x22:
        this.stringIsKey = false;
        this.state = S.String;
        return true;
      case 0x2d:
        this.state = S.NumMinus;
        return true;
      case 0x74:
        return this.startLiteral('true');
      case 0x66:
        return this.startLiteral('false');
      case 0x6e:
        return this.startLiteral('null');
      default:
        if (c === 0x30) this.state = S.NumZero;
        else if (DIGIT(c)) this.state = S.NumInt;
        else return false;
        return true;
    }
  }

  private startLiteral(word: string): boolean {
    this.literal = word;
    this.literalPos = 1;
    this.state = S.Literal;
    return true;
  }

  /** The character after a number is read again in the state after the value. */
  private numberEnded(): boolean {
    this.valueEnded();
    this.reconsume = true;
    return true;
  }

  private valueEnded(): void {
    this.state = this.depth === 0 ? S.Done : S.AfterValue;
  }

  private top(): number {
    const d = this.depth - 1;
    return (this.stack[d >> 3] >> (d & 7)) & 1;
  }

  private open(kind: 0 | 1): boolean {
    if (this.depth >= MAX_JSON_DEPTH) {
      this.error = `JSON nests deeper than ${MAX_JSON_DEPTH} levels`;
      return false;
    }
    const byte = this.depth >> 3;
    if (byte >= this.stack.length) {
      const bigger = new Uint8Array(this.stack.length * 2);
      bigger.set(this.stack);
      this.stack = bigger;
    }
    const bit = 1 << (this.depth & 7);
    this.stack[byte] = kind ? this.stack[byte] | bit : this.stack[byte] & ~bit;
    this.depth++;
    return true;
  }

  private close(kind: 0 | 1): boolean {
    if (this.depth === 0 || this.top() !== kind) return false;
    this.depth--;
    this.valueEnded();
    return true;
  }
}
