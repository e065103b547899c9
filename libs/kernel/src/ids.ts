import { randomBytes, randomFillSync } from 'node:crypto';

/** Type prefixes of CONTRACT.md §2. */
export type IdPrefix =
  | 'acc'
  | 'key'
  | 'qt'
  | 'task'
  | 'up'
  | 'ast'
  | 'voice'
  | 'bill'
  | 'client'
  | 'grant'
  | 'evt'
  | 'sess'
  | 'whe'
  | 'whd'
  | 'msg';

/**
 * Ids are lowercase ULIDs (https://github.com/ulid/spec): 48 bits of milliseconds and 80
 * random bits, Crockford's base 32, 26 letters. Within one millisecond (or when the clock
 * steps back) the random part of the last id is incremented, so ids of one process sort in
 * the order they were made. Random bytes come from the OS CSPRNG 4 KiB at a time; a byte's
 * low five bits are one uniform letter.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const pool = Buffer.alloc(4096);
let next = pool.length;
function randomLetter(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++] & 31;
}

let lastTime = -1;
const lastRandom: number[] = new Array<number>(16).fill(0);

function ulid(now: number): string {
  if (now > lastTime) {
    lastTime = now;
    for (let i = 0; i < 16; i++) lastRandom[i] = randomLetter();
  } else {
    let i = 15;
    while (i >= 0 && lastRandom[i] === 31) lastRandom[i--] = 0;
    if (i < 0) throw new Error('id space of this millisecond exhausted');
    lastRandom[i]++;
  }
  let time = '';
  for (let t = lastTime, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time;
  let random = '';
  for (const d of lastRandom) random += ALPHABET[d];
  return time + random;
}

/** Opaque, time-sortable id with a type prefix, e.g. `task_01jd3...`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid(Date.now())}`;
}

/** A high-entropy secret (API keys, tokens), URL-safe. */
export function newSecret(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return typeof id === 'string' && id.startsWith(`${prefix}_`) && id.length <= 100;
}
