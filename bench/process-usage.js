'use strict';
/*
 * Preloaded into a process a bench starts (`node --require bench/process-usage.js ...`): at
 * exit it writes its CPU time and peak resident memory as JSON to BENCH_USAGE_FILE.
 */
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.BENCH_USAGE_FILE;
  if (!file) return;
  const cpu = process.cpuUsage();
  const usage = process.resourceUsage();
  writeFileSync(file, JSON.stringify({ cpu_seconds: (cpu.user + cpu.system) / 1e6, peak_rss_mb: Math.round(usage.maxRSS / 1024) }));
});
