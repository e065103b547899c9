/**
 * The kernel: what a domain file needs and nothing more. Deciders, workflows, events and
 * their schemas, errors (codes, no HTTP), money, text checks, ids and the clock, and the
 * published language. It depends on no package; a domain file and its spec load only this.
 */
export * from './errors';
export * from './money';
export * from './text';
export * from './ids';
export * from './clock';
export * from './event';
export * from './upcasters';
export * from './decider';
export * from './workflow';
export * from './published-language';
