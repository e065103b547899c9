#!/usr/bin/env node
/*
 * The yardstick for task creation: `POST /v1/quotes` and `POST /v1/tasks` written the plain
 * way, with `node:http` and `node:sqlite` (WAL, `synchronous = FULL`), no framework and no
 * event sourcing. Not product code: bench/creation-vs-reference.js runs it beside the service
 * under the same load.
 *
 * It keeps the rules that matter for the comparison and the same durability:
 * - a bearer API key, looked up by its SHA-256;
 * - a JSON body only (415 otherwise), no unknown fields, the model's input validated against
 *   its `input_schema` (ajv, defaults applied), the price from the catalogue (fixed pricing);
 * - a quote is stored (its own transaction, durable before the answer) and lives 15 minutes;
 * - a creation is one transaction, durable before the 202: the idempotency row (same key and
 *   body → the same task; same key, other body → 409), the quote lock (used → 409
 *   QUOTE_ALREADY_USED, expired → 409 QUOTE_EXPIRED), the reservation (402
 *   INSUFFICIENT_FUNDS when the available amount is short) and the task row.
 * Errors have the spec's shape. Amounts are integer micro-units inside.
 *
 *   node bench/reference/server.js   (PORT, HOST, DB: the SQLite file; prints "ready" when listening)
 *   node bench/reference/server.js --account <api key> <credit in CNY>   (creates an account, then exits)
 */
'use strict';
const http = require('node:http');
const { createHash, randomBytes } = require('node:crypto');
const { join } = require('node:path');
const { DatabaseSync } = require('node:sqlite');
const Ajv = require('ajv');

const catalogue = require(join(__dirname, '..', '..', 'libs', 'catalogue', 'catalogue', 'catalogue.json'));
const QUOTE_TTL_MS = 15 * 60 * 1000;
const MAX_BODY = 1 << 20;

const db = new DatabaseSync(process.env.DB || 'reference.db');
db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
db.exec(`
  CREATE TABLE IF NOT EXISTS api_keys (hash TEXT PRIMARY KEY, account_id TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS wallets (account_id TEXT PRIMARY KEY, available INTEGER NOT NULL, reserved INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS quotes (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, body TEXT NOT NULL, max_amount INTEGER NOT NULL,
    expires_at INTEGER NOT NULL, task_id TEXT) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS idempotency (account_id TEXT NOT NULL, key TEXT NOT NULL, body_hash TEXT NOT NULL, task_id TEXT NOT NULL,
    PRIMARY KEY (account_id, key)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS tasks_account ON tasks (account_id, created_at);
`);

const sha256 = (s) => createHash('sha256').update(s).digest('hex');
const micros = (s) => {
  const [w, f = ''] = s.split('.');
  return BigInt(w) * 1_000_000n + BigInt(f.padEnd(6, '0').slice(0, 6));
};
const format = (m) => `${m / 1_000_000n}.${String(m % 1_000_000n).padStart(6, '0')}`;
const newId = (prefix) => `${prefix}_${Date.now().toString(36)}${randomBytes(10).toString('hex')}`;

/** `fn` as one transaction: committed when it returns, rolled back when it throws. */
const control = { begin: db.prepare('BEGIN'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') };
const transaction =
  (fn) =>
  (...args) => {
    control.begin.run();
    try {
      const result = fn(...args);
      control.commit.run();
      return result;
    } catch (e) {
      try {
        control.rollback.run();
      } catch {
        // SQLite ended the transaction itself
      }
      throw e;
    }
  };
/** A statement whose INTEGER columns read as bigint. */
const bigInts = (statement) => (statement.setReadBigInts(true), statement);

if (process.argv[2] === '--account') {
  const [key, credit] = process.argv.slice(3);
  const account = newId('acct');
  transaction(() => {
    db.prepare('INSERT INTO api_keys (hash, account_id) VALUES (?, ?)').run(sha256(key), account);
    db.prepare('INSERT INTO wallets (account_id, available, reserved) VALUES (?, ?, 0)').run(account, micros(credit));
  })();
  process.stdout.write(JSON.stringify({ account_id: account }) + '\n');
  process.exit(0);
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const models = new Map(catalogue.models.map((m) => [m.id, { ...m, validate: ajv.compile(m.input_schema) }]));

const q = {
  key: db.prepare('SELECT account_id FROM api_keys WHERE hash = ?'),
  insertQuote: db.prepare('INSERT INTO quotes (id, account_id, body, max_amount, expires_at) VALUES (?, ?, ?, ?, ?)'),
  idem: db.prepare('SELECT body_hash, task_id FROM idempotency WHERE account_id = ? AND key = ?'),
  task: db.prepare('SELECT body FROM tasks WHERE id = ?'),
  quote: bigInts(db.prepare('SELECT body, max_amount, expires_at, task_id FROM quotes WHERE id = ? AND account_id = ?')),
  lockQuote: db.prepare('UPDATE quotes SET task_id = ? WHERE id = ? AND task_id IS NULL'),
  reserve: db.prepare('UPDATE wallets SET available = available - ?, reserved = reserved + ? WHERE account_id = ? AND available >= ?'),
  insertIdem: db.prepare('INSERT INTO idempotency (account_id, key, body_hash, task_id) VALUES (?, ?, ?, ?)'),
  insertTask: db.prepare('INSERT INTO tasks (id, account_id, body, created_at) VALUES (?, ?, ?, ?)'),
};

class Refusal extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
const invalid = (message) => new Refusal(400, 'VALIDATION_ERROR', message);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const onlyFields = (body, allowed) => {
  for (const k of Object.keys(body)) if (!allowed.includes(k)) throw invalid(`${k}: unknown field`);
};

function issueQuote(account, _headers, body) {
  onlyFields(body, ['model', 'capability', 'input', 'options', 'currency']);
  if (body.currency !== undefined && body.currency !== 'CNY') throw invalid('currency: only CNY is supported');
  const model = typeof body.model === 'string' ? models.get(body.model) : undefined;
  if (!model) throw invalid('model: unknown model');
  if (!model.capabilities.includes(body.capability)) throw invalid('capability: not a capability of the model');
  if (!model.available) throw new Refusal(422, 'MODEL_UNAVAILABLE', 'model is not available');
  if (!isObject(body.input)) throw invalid('input: must be an object');
  if (body.options !== undefined && !isObject(body.options)) throw invalid('options: must be an object');
  const params = { ...body.input, ...(body.options ?? {}) };
  if (!model.validate(params)) throw invalid(model.validate.errors.map((e) => `input${e.instancePath.replace(/\//g, '.')}: ${e.message}`).join('; '));
  const pricing = model.pricing.find((p) => p.capability === body.capability);
  const price = pricing && pricing.quantity.kind === 'one' ? pricing.prices.find((p) => Object.keys(p.when).length === 0) : undefined;
  if (!price) throw new Refusal(422, 'PRICE_UNAVAILABLE', 'no price for this request');
  const amount = micros(price.unit_price);
  const now = Date.now();
  const quote = {
    quote_id: newId('qt'),
    model: model.id,
    resolved_model: model.resolved_model,
    currency: 'CNY',
    pricing_mode: 'fixed',
    price_version: catalogue.version,
    estimated_amount: format(amount),
    max_amount: format(amount),
    quantity: 1,
    unit: pricing.unit,
    unit_price: price.unit_price,
    expires_at: new Date(now + QUOTE_TTL_MS).toISOString(),
  };
  const stored = { ...quote, capability: body.capability, modality: model.modality, params };
  q.insertQuote.run(quote.quote_id, account, JSON.stringify(stored), amount, now + QUOTE_TTL_MS);
  return [200, quote];
}

const createTask = transaction((account, key, body) => {
  const bodyHash = sha256(JSON.stringify({ quote_id: body.quote_id, title: body.title }));
  const seen = q.idem.get(account, key);
  if (seen) {
    if (seen.body_hash !== bodyHash) throw new Refusal(409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key was already used with a different body');
    return [202, JSON.parse(q.task.get(seen.task_id).body)];
  }
  const quote = q.quote.get(body.quote_id, account);
  if (!quote) throw new Refusal(404, 'NOT_FOUND', 'quote not found');
  if (quote.task_id !== null) throw new Refusal(409, 'QUOTE_ALREADY_USED', 'the quote was already used for another task');
  const now = new Date();
  if (Number(quote.expires_at) <= now.getTime()) throw new Refusal(409, 'QUOTE_EXPIRED', 'the quote has expired');
  const terms = JSON.parse(quote.body);
  if (q.reserve.run(quote.max_amount, quote.max_amount, account, quote.max_amount).changes !== 1) {
    throw new Refusal(402, 'INSUFFICIENT_FUNDS', 'available funds are less than the quote maximum');
  }
  const at = now.toISOString();
  const task = {
    id: newId('task'),
    status: 'queued',
    model: terms.model,
    resolved_model: terms.resolved_model,
    capability: terms.capability,
    modality: terms.modality,
    title: body.title,
    quote_id: terms.quote_id,
    price_version: terms.price_version,
    currency: 'CNY',
    max_amount: terms.max_amount,
    charged_amount: null,
    settlement_status: 'reserved',
    cancellation: { status: 'none', requested_at: null, error_code: null },
    output: null,
    error: null,
    created_at: at,
    updated_at: at,
    completed_at: null,
  };
  q.lockQuote.run(task.id, terms.quote_id);
  q.insertIdem.run(account, key, bodyHash, task.id);
  q.insertTask.run(task.id, account, JSON.stringify(task), at);
  return [202, task];
});

function postTask(account, headers, body) {
  const key = headers['idempotency-key'];
  if (typeof key !== 'string' || key.length < 8 || key.length > 150) throw invalid('Idempotency-Key: required, 8 to 150 characters');
  onlyFields(body, ['quote_id', 'title']);
  if (typeof body.quote_id !== 'string' || body.quote_id.length < 1) throw invalid('quote_id: required string');
  let title = null;
  if (body.title !== undefined) {
    if (typeof body.title !== 'string' || body.title.trim().length < 1 || body.title.trim().length > 200) throw invalid('title: 1 to 200 characters');
    title = body.title.trim();
  }
  return createTask(account, key, { quote_id: body.quote_id, title });
}

const routes = { '/v1/quotes': issueQuote, '/v1/tasks': postTask };

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'X-Request-Id': res.requestId });
  res.end(text);
}

const server = http.createServer((req, res) => {
  res.requestId = `req_${randomBytes(8).toString('hex')}`;
  const fail = (e) => {
    if (e instanceof Refusal) send(res, e.status, { error: { code: e.code, message: e.message, request_id: res.requestId } });
    else send(res, 500, { error: { code: 'INTERNAL', message: 'internal error', request_id: res.requestId } });
  };
  const route = req.method === 'POST' ? routes[req.url] : undefined;
  if (!route) return fail(new Refusal(404, 'NOT_FOUND', 'no such route'));
  const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  const account = auth ? q.key.get(sha256(auth[1]))?.account_id : undefined;
  if (!account) return fail(new Refusal(401, 'UNAUTHORIZED', 'missing or unknown credential'));
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return fail(new Refusal(415, 'UNSUPPORTED_MEDIA_TYPE', 'send application/json'));
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size <= MAX_BODY) chunks.push(c);
  });
  req.on('end', () => {
    try {
      if (size > MAX_BODY) throw new Refusal(413, 'PAYLOAD_TOO_LARGE', 'body too large');
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        throw invalid('body: not valid JSON');
      }
      if (!isObject(body)) throw invalid('body: must be a JSON object');
      const [status, answer] = route(account, req.headers, body);
      send(res, status, answer);
    } catch (e) {
      fail(e);
    }
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 8081), process.env.HOST || '127.0.0.1', () => process.stdout.write('ready\n'));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => (db.close(), process.exit(0))));
