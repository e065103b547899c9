import cliProgress from 'cli-progress';
import { escapeControl } from './output.js';

const { SingleBar } = cliProgress;

/** Human byte counts: 1.5 MiB. */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

export interface ByteProgress {
  add(n: number): void;
  /** Back to zero (a re-sent upload). */
  reset(): void;
  stop(): void;
}

/** A byte progress bar on stderr (a line per second when stderr is not a terminal); silent with `quiet`. */
export function byteProgress(label: string, total: number, quiet: boolean): ByteProgress {
  if (quiet) return { add() {}, reset() {}, stop() {} };
  const bar = new SingleBar({
    stream: process.stderr,
    format: `${label} [{bar}] {percentage}% | {done}/{size} | {speed}/s | ETA {eta_formatted}`,
    barsize: 30,
    hideCursor: true,
    noTTYOutput: true,
    notTTYSchedule: 1000,
  });
  const started = Date.now();
  let done = 0;
  const payload = () => ({ done: bytes(done), size: bytes(total), speed: bytes(Math.round(done / Math.max(0.001, (Date.now() - started) / 1000))) });
  bar.start(total, 0, payload());
  return {
    add(n) {
      done += n;
      bar.update(done, payload());
    },
    reset() {
      done = 0;
      bar.update(0, payload());
    },
    stop() {
      bar.update(done, payload());
      bar.stop();
    },
  };
}

/**
 * A one-line status display for a waiting task: rewritten in place on a terminal, a new
 * line per change otherwise.
 */
export function statusLine(quiet: boolean): { show(text: string): void; stop(): void } {
  const tty = process.stderr.isTTY === true;
  let last = '';
  return {
    show(raw) {
      const text = escapeControl(raw);
      if (quiet || text === last) return;
      if (tty) process.stderr.write(`\r\x1b[2K${text}`);
      else process.stderr.write(`${text}\n`);
      last = text;
    },
    stop() {
      if (!quiet && tty && last) process.stderr.write('\n');
    },
  };
}
