import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensurePrivateDir, keepPrivate } from './private-files';

/**
 * The one typed configuration object, read from the environment once at start and
 * validated (a bad value stops the process with the variable's name). README's
 * configuration table lists every variable.
 */
export class AppConfig {
  readonly port!: number;
  readonly host!: string;
  readonly dataDir!: string;
  readonly publicBaseUrl!: string;
  readonly logLevel!: string;
  /** HMAC secret for signed asset links and other service-signed values. */
  readonly signingSecret!: string;
  readonly eventStoreUrl?: string;
  readonly mongoUrl?: string;
  readonly mongoDb!: string;
  /** Page cache of the embedded read store (`DATA_DIR/read.db`) in MiB. */
  readonly readCacheMb!: number;
  readonly s3?: { endpoint: string; accessKey: string; secretKey: string; bucket: string; region: string };
  readonly localSupplierDelayMs!: number;
  readonly accessTokenTtlSeconds!: number;
  readonly adminToken?: string;
  readonly adminPort!: number;
  /** JSON body limit in bytes. */
  readonly jsonBodyLimit!: number;
  /** Request rate limits (CONTRACT §13) and failed sign-in throttling. */
  readonly rateLimits!: RateLimitSettings;
  /**
   * What this process does (CONTRACT §13): `all` serves HTTP and runs the background work;
   * `api` serves HTTP only; `worker` runs reactors, supplier jobs and timers and serves only
   * health and metrics. Every role keeps the projections its reads need.
   */
  readonly processRole!: ProcessRole;

  constructor(values: AppConfig) {
    Object.assign(this, values);
  }
}

export interface RateLimitSettings {
  /** RATE_LIMITS=off turns the request limits off (benchmarks); failed sign-ins stay throttled. */
  readonly enabled: boolean;
  /** Requests per minute per credential (API key or OAuth grant). */
  readonly perCredential: number;
  /** POST /v1/tasks per minute per credential. */
  readonly taskCreations: number;
  /** Requests per minute per client address without a valid credential. */
  readonly perAddress: number;
  /** Failed sign-ins per account (email) in 15 minutes before further attempts are refused. */
  readonly signInFailuresPerAccount: number;
  /** Failed sign-ins per client address in 15 minutes before further attempts are refused. */
  readonly signInFailuresPerAddress: number;
}
export const PROCESS_ROLES = ['all', 'api', 'worker'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

/** Whether a process of this role serves the public HTTP API. */
export const servesApi = (role: ProcessRole): boolean => role !== 'worker';
/** Whether a process of this role runs reactors, supplier jobs and background timers. */
export const runsBackgroundWork = (role: ProcessRole): boolean => role !== 'api';

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads the integer variable `name` (digits only), `def` when unset or empty; a value that is
 * not an integer or lies outside [min, max] throws a ConfigError naming the variable.
 */
export function envInt(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got ${JSON.stringify(raw)}`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return n;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(u.protocol)) throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  return raw;
}

/**
 * EVENTSTORE_URL as the EventStoreDB client library parses it (`esdb://` or
 * `esdb+discover://`), so a value the client would refuse stops the start here, with the
 * variable's name, rather than at the first connection.
 */
function eventStoreUrl(env: Env): string | undefined {
  const raw = env.EVENTSTORE_URL;
  if (raw === undefined || raw === '') return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseConnectionString } = require('@eventstore/db-client/dist/Client/parseConnectionString') as {
    parseConnectionString(s: string): unknown;
  };
  try {
    parseConnectionString(raw);
  } catch (err) {
    throw new ConfigError('EVENTSTORE_URL', `is not a connection string the EventStoreDB client accepts: ${(err as Error).message}`);
  }
  return raw;
}

/** Reads the signing secret from SIGNING_SECRET, else from (or into) DATA_DIR/signing.key. */
function signingSecret(env: Env, dataDir: string): string {
  const raw = env.SIGNING_SECRET;
  if (raw) {
    if (raw.length < 32) throw new ConfigError('SIGNING_SECRET', 'must be at least 32 characters');
    return raw;
  }
  const file = join(dataDir, 'signing.key');
  if (existsSync(file)) {
    keepPrivate(file);
    return readFileSync(file, 'utf8').trim();
  }
  ensurePrivateDir(dataDir);
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, secret + '\n', { flag: 'wx', mode: 0o600 });
    return secret;
  } catch {
    return readFileSync(file, 'utf8').trim(); // another process wrote it first
  }
}

function rateLimits(env: Env): RateLimitSettings {
  const mode = (env.RATE_LIMITS || 'on').toLowerCase();
  if (!['on', 'off'].includes(mode)) throw new ConfigError('RATE_LIMITS', 'must be on or off');
  return {
    enabled: mode === 'on',
    perCredential: envInt(env, 'RATE_LIMIT_PER_CREDENTIAL', 3000, 1, 10_000_000),
    taskCreations: envInt(env, 'RATE_LIMIT_TASK_CREATIONS', 600, 1, 10_000_000),
    perAddress: envInt(env, 'RATE_LIMIT_PER_ADDRESS', 3000, 1, 10_000_000),
    signInFailuresPerAccount: envInt(env, 'SIGNIN_FAILURES_PER_ACCOUNT', 10, 1, 1_000_000),
    signInFailuresPerAddress: envInt(env, 'SIGNIN_FAILURES_PER_ADDRESS', 50, 1, 1_000_000),
  };
}

function processRole(env: Env): ProcessRole {
  const raw = env.PROCESS_ROLE || 'all';
  if (!(PROCESS_ROLES as readonly string[]).includes(raw)) throw new ConfigError('PROCESS_ROLE', `must be one of ${PROCESS_ROLES.join(', ')}`);
  return raw as ProcessRole;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const port = envInt(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const dataDir = resolve(env.DATA_DIR || './data');
  const publicBaseUrl = (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent');
  }
  const s3Vars = ['S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET'] as const;
  const s3Set = s3Vars.filter((v) => env[v]);
  if (s3Set.length && s3Set.length !== s3Vars.length) {
    throw new ConfigError(s3Vars.find((v) => !env[v])!, 'must be set together with the other S3_* variables');
  }
  const s3 = s3Set.length
    ? {
        endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:'])!,
        accessKey: env.S3_ACCESS_KEY!,
        secretKey: env.S3_SECRET_KEY!,
        bucket: env.S3_BUCKET!,
        region: env.S3_REGION || 'us-east-1',
      }
    : undefined;
  return new AppConfig({
    port,
    host,
    dataDir,
    publicBaseUrl,
    logLevel,
    signingSecret: signingSecret(env, dataDir),
    eventStoreUrl: eventStoreUrl(env),
    mongoUrl: url(env, 'MONGO_URL', ['mongodb:', 'mongodb+srv:']),
    mongoDb: env.MONGO_DB || 'gensvc',
    readCacheMb: envInt(env, 'READ_CACHE_MB', 64, 1, 65_536),
    s3,
    localSupplierDelayMs: envInt(env, 'LOCAL_SUPPLIER_DELAY_MS', 1000, 0, 600_000),
    accessTokenTtlSeconds: envInt(env, 'ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 86_400),
    adminToken: env.ADMIN_TOKEN || undefined,
    adminPort: envInt(env, 'ADMIN_PORT', 3001, 0, 65535),
    jsonBodyLimit: envInt(env, 'JSON_BODY_LIMIT', 1_048_576, 1024, 16_777_216),
    rateLimits: rateLimits(env),
    processRole: processRole(env),
  });
}
