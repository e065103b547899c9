import type { AdminCommand } from '../command';

/**
 * `channels`: every provider channel and its routes (CONTRACT §15): each route's last probe
 * (time, result), open jobs, requests sent in the last minute of `requests_per_minute`,
 * requests by kind and outcome, recent errors by code, mean latency. Counts are those every
 * running process published in the last minute.
 */
export const channelsCommand: AdminCommand = {
  words: ['channels'],
  usage: 'channels',
  run: (use) => use.channels.report(),
};
