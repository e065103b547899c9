import { AppError } from './errors';

/**
 * Characters a title, description or name may not hold (CONTRACT §17): C0 controls (tab and
 * newline included), DEL, C1 controls, the line and paragraph separators, and the
 * bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). Printed by
 * a client they would drive its terminal (escape sequences) or make the text lie about itself
 * (`invoice‮fdp.exe`).
 */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, 'gu');

/** Whether `text` holds a character of CONTROL_CHARACTER. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/** Refuses text with a control character: 400 VALIDATION_ERROR naming `field` and the character. */
export function checkPlainText(text: string, field: string): string {
  const found = CONTROL_CHARACTER.exec(text);
  if (found) {
    const code = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw new AppError('VALIDATION_ERROR', `${field}: must not contain control or bidirectional formatting characters (found U+${code})`);
  }
  return text;
}

/** `text` without its control characters (for text that arrives after it can still be refused). */
export function withoutControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '');
}
