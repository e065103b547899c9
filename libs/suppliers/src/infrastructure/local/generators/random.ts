import { createHash } from 'node:crypto';

/** A 32-bit seed from any JSON-able inputs (stable across runs and processes). */
export function seedOf(...parts: unknown[]): number {
  return createHash('sha256').update(JSON.stringify(parts)).digest().readUInt32BE(0);
}

/** mulberry32: a small deterministic PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Hot loops below avoid `Math.*` calls: under Jest's VM context every call to a Math
 * built-in is many times slower, and the e2e tests run these generators in-process.
 */
export const SINE_STEPS = 4096;
const SINE_TABLE = new Float64Array(SINE_STEPS + 1);
for (let i = 0; i <= SINE_STEPS; i++) SINE_TABLE[i] = Math.sin((2 * Math.PI * i) / SINE_STEPS);

/** sin(2π·turns) by table lookup (turns may be any non-negative number). */
export function sinTurns(turns: number): number {
  const x = turns - (turns | 0);
  const p = (x < 0 ? x + 1 : x) * SINE_STEPS;
  const i = p | 0;
  return SINE_TABLE[i] + (SINE_TABLE[i + 1] - SINE_TABLE[i]) * (p - i);
}

/** xorshift32 noise in [-1, 1), integer operations only. */
export function noise(seed: number): () => number {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2147483648 - 1;
  };
}
