import { SingleBar } from 'cli-progress';
import { AppError, type ErrorCode } from '@gensvc/kernel';
import { AdminClient, AdminUnreachableError, adminBaseUrl, type ReplayResult, type ReplayState } from '@gensvc/operations';
import type { AdminUseCases } from '../admin-use-cases';
import { UsageError, type AdminCommand, type Flags } from '../command';

const POLL_MS = 200;

/** Events done / total, rate and ETA on stderr (a line per second when stderr is not a terminal). */
function progressBar(): { update(state: ReplayState): void; stop(): void } {
  const bar = new SingleBar({
    stream: process.stderr,
    format: 'replay [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta_s} | {phase}',
    barsize: 30,
    hideCursor: true,
    noTTYOutput: true,
    notTTYSchedule: 1000,
    etaBuffer: 50,
  });
  let started = false;
  const payload = (s: ReplayState) => ({
    rate: s.events_per_second,
    eta_s: s.eta_seconds === null ? '?' : `${s.eta_seconds}s`,
    phase: s.phase,
  });
  return {
    update(s) {
      const total = Math.max(1, s.events_total, s.events_done);
      if (!started) {
        bar.start(total, s.events_done, payload(s));
        started = true;
      }
      bar.setTotal(total);
      bar.update(s.events_done, payload(s));
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

function projectionsFlag(flags: Flags): string[] | undefined {
  const v = flags.projection;
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !v.trim()) throw new UsageError('--projection needs a projection name');
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Asks the running server (admin endpoint) to replay, following its progress. */
async function replayInServer(client: AdminClient, projections: string[] | undefined, bar: ReturnType<typeof progressBar>): Promise<ReplayResult> {
  let state = await client.startReplay(projections);
  bar.update(state);
  while (state.status === 'running') {
    await new Promise((r) => setTimeout(r, POLL_MS));
    state = await client.getReplay(state.id);
    bar.update(state);
  }
  if (state.status === 'failed' || !state.result) {
    throw new AppError((state.error?.code ?? 'INTERNAL') as ErrorCode, `replay failed in the server; nothing was switched: ${state.error?.message ?? 'unknown error'}`);
  }
  return state.result;
}

/**
 * `replay [--projection NAME[,NAME...]]`: rebuilds projections into fresh collections, then
 * switches atomically. With ADMIN_TOKEN set and the server's admin endpoint answering, the
 * server does the replay (its read models are the live ones). Otherwise this process
 * replays against its own stores, which a running server shares (MongoDB, or the embedded
 * `DATA_DIR/read.db`): the server's projection loop adopts the rebuilt read models.
 */
export const replayCommand: AdminCommand = {
  words: ['replay'],
  usage: 'replay [--projection NAME[,NAME...]]',
  async run(use: AdminUseCases, flags: Flags): Promise<ReplayResult> {
    const projections = projectionsFlag(flags);
    const config = use.config;
    const bar = progressBar();
    try {
      if (config.adminToken) {
        const client = new AdminClient(adminBaseUrl(config), config.adminToken);
        try {
          return await replayInServer(client, projections, bar);
        } catch (err) {
          if (!(err instanceof AdminUnreachableError)) throw err;
          process.stderr.write(`${err.message}; replaying in this process instead\n`);
        }
      }
      return await use.replay.run({ projections }, (s) => bar.update(s));
    } finally {
      bar.stop();
    }
  },
};
