/** Structured logging (pino). */
export * from './logger';
