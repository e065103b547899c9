import pino, { type Logger, type DestinationStream } from 'pino';

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-upload-token"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.api_key',
  '*.apiKey',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.token',
  '*.code_verifier',
  '*.secret',
  'headers.authorization',
  'headers["x-upload-token"]',
];

let destination: DestinationStream | undefined;

/** Tests capture log output by installing a destination before the app starts. */
export function setLogDestination(dest: DestinationStream | undefined): void {
  destination = dest;
}

export function createLogger(level = process.env.LOG_LEVEL || 'info', name = 'gensvc'): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 2, sync: false }),
  );
}
