#!/usr/bin/env node
/*
 * The cost of HTTP handling alone, per request, on this machine: what the fixed stack
 * (NestJS on @nestjs/platform-express, Express 5) spends before any of gensvc's own work,
 * against Node's bare `node:http` (what bench/reference/server.js is built on):
 *
 *   npm run build && node bench/http-floor.js [--seconds 5] [--connections 32]
 *
 * Each server answers `POST /v1/quotes` with a JSON body (the body of a quote) by parsing it
 * and answering a small JSON object, nothing else:
 *   node      node:http, body read and parsed by hand;
 *   express   Express 5 with express.json(), res.json();
 *   nest      NestJS + platform-express, one controller, @Body(), default pipeline;
 * then gensvc itself (dist/, embedded stores, as bench/tasks.js starts it):
 *   gensvc GET /v1/capabilities (public), gensvc GET /v1/wallet (API key).
 * Each runs in a process of its own; autocannon (in another process) sends the load for a
 * warm-up round, then a measured round. Prints one JSON object: requests/s and the server's
 * CPU milliseconds per request (user + system, from /proc/<pid>/stat).
 */
'use strict';
const { fork } = require('node:child_process');
const http = require('node:http');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');

const BODY = JSON.stringify({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt: 'benchmark' } });

/** CPU seconds a process used so far (utime + stime). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Role 1: a bare server of one kind, listening; sends its port to the parent. */
async function serve(kind) {
  let server;
  if (kind === 'node') {
    server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const parsed = JSON.parse(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ model: parsed.model }));
      });
    });
  } else if (kind === 'express') {
    const express = require('express');
    const app = express();
    app.use(express.json());
    app.post('/v1/quotes', (req, res) => res.json({ model: req.body.model }));
    server = http.createServer(app);
  } else if (kind === 'nest') {
    require('reflect-metadata');
    const { NestFactory } = require('@nestjs/core');
    const { Body, Controller, HttpCode, Module, Post } = require('@nestjs/common');
    class QuotesController {
      create(body) {
        return { model: body.model };
      }
    }
    Reflect.decorate([Post(), HttpCode(200)], QuotesController.prototype, 'create', Object.getOwnPropertyDescriptor(QuotesController.prototype, 'create'));
    Body()(QuotesController.prototype, 'create', 0);
    Reflect.decorate([Controller('v1/quotes')], QuotesController);
    class AppModule {}
    Reflect.decorate([Module({ controllers: [QuotesController] })], AppModule);
    const app = await NestFactory.create(AppModule, { logger: false });
    await app.init();
    server = app.getHttpServer();
  } else {
    throw new Error(`unknown server kind ${kind}`);
  }
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}

/** Role 2: autocannon against `url`; sends its result to the parent. */
async function cannon(url, method, seconds, connections, headers) {
  const autocannon = require('autocannon');
  const r = await autocannon({ url, method, body: method === 'POST' ? BODY : undefined, headers, connections, duration: seconds });
  process.send({ total: r.requests.total, perSecond: r.requests.average, non2xx: r.non2xx, errors: r.errors });
}

function child(args) {
  const c = fork(__filename, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const message = new Promise((resolve, reject) => {
    c.once('message', resolve);
    c.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  return { c, message };
}

async function measure(pid, url, method, headers, seconds, connections) {
  const run = async () => {
    const c0 = cpuSeconds(pid);
    const load = child(['--cannon', url, method, String(seconds), String(connections), JSON.stringify(headers)]);
    const r = await load.message;
    const cpu = cpuSeconds(pid) - c0;
    if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} answers not 2xx, ${r.errors} errors`);
    return { requests_per_s: Math.round(r.perSecond), cpu_ms_per_request: Number(((1000 * cpu) / r.total).toFixed(3)) };
  };
  await run(); // warm-up
  return run();
}

async function main() {
  const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' } } });
  const seconds = Number(args.seconds);
  const connections = Number(args.connections);
  const results = {};
  for (const kind of ['node', 'express', 'nest']) {
    const s = child(['--serve', kind]);
    const { port } = await s.message;
    results[kind] = await measure(s.c.pid, `http://127.0.0.1:${port}/v1/quotes`, 'POST', { 'content-type': 'application/json' }, seconds, connections);
    s.c.kill();
    process.stderr.write(`${kind}: ${JSON.stringify(results[kind])}\n`);
  }
  const { startServer, stopServer, account } = require('./tasks');
  const dir = mkdtempSync(join(tmpdir(), 'gensvc-http-floor-'));
  const g = await startServer(dir);
  try {
    const { auth } = await account(g, '1000');
    results['gensvc GET /v1/capabilities'] = await measure(g.server.pid, `http://127.0.0.1:${g.port}/v1/capabilities`, 'GET', {}, seconds, connections);
    results['gensvc GET /v1/wallet'] = await measure(g.server.pid, `http://127.0.0.1:${g.port}/v1/wallet`, 'GET', auth, seconds, connections);
  } finally {
    await stopServer(g);
    rmSync(dir, { recursive: true, force: true });
  }
  const { cpus, loadavg } = require('node:os');
  process.stdout.write(JSON.stringify({ machine: { cpus: cpus().length, node: process.version, loadavg: loadavg() }, results }, null, 1) + '\n');
}

if (process.argv[2] === '--serve') serve(process.argv[3]);
else if (process.argv[2] === '--cannon') cannon(process.argv[3], process.argv[4], Number(process.argv[5]), Number(process.argv[6]), JSON.parse(process.argv[7]));
else main().catch((err) => {
  console.error(err);
  process.exit(1);
});
