'use strict';
/*
 * A provider stand-in in a process of its own, driven over IPC by a bench script (so the
 * bench's own event loop never shares time with the provider it measures):
 *   const s = await startStandIn('replicate', ['owner/model']);
 *   await s.call('jobs'); await s.call('succeed', id, outputs); await s.call('requests');
 */
const { fork } = require('node:child_process');
const { join } = require('node:path');

const CLASSES = { replicate: ['replicate.stand-in.ts', 'ReplicateStandIn'] };

if (require.main === module) {
  require('./typescript').register();
  const [type, models] = [process.argv[2], JSON.parse(process.argv[3])];
  const [file, name] = CLASSES[type];
  const StandIn = require(join(__dirname, '..', '..', 'libs/suppliers/src/testing/stand-ins', file))[name];
  (async () => {
    const s = await new StandIn(undefined, models).start();
    process.on('message', async ({ id, op, args }) => {
      try {
        let value;
        if (op === 'info') value = { url: s.url, token: s.token };
        else if (op === 'requests') value = s.requests;
        else if (op === 'jobs') value = s.jobs();
        else if (op === 'jobCount') value = s.jobs().length;
        else if (op === 'succeedAll') value = s.jobs().map((j) => s.succeed(j.id, args[0])).length;
        else if (op === 'stop') value = await s.stop();
        else value = await s[op](...args);
        process.send({ id, value: value ?? null });
      } catch (err) {
        process.send({ id, error: err.stack });
      }
    });
    process.send({ ready: true });
  })();
} else {
  module.exports.startStandIn = (type, models) =>
    new Promise((resolve, reject) => {
      const child = fork(__filename, [type, JSON.stringify(models)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
      const pending = new Map();
      let next = 0;
      child.on('message', (m) => {
        if (m.ready) {
          const call = (op, ...args) =>
            new Promise((res, rej) => {
              const id = next++;
              pending.set(id, { res, rej });
              child.send({ id, op, args });
            });
          return resolve({ call, pid: child.pid, kill: () => child.kill() });
        }
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.error) p.rej(new Error(m.error));
        else p.res(m.value);
      });
      child.once('exit', (code) => reject(new Error(`the stand-in exited (${code})`)));
    });
}
