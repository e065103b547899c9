import express from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { bodyParsers } from './body-parsers';
import { MAX_JSON_DEPTH } from './json-body';

/** The real body middleware in front of a route that echoes what it parsed. */
function echoApp(routedMethods?: (path: string) => readonly string[]) {
  const app = express();
  app.use(bodyParsers(1_048_576, routedMethods));
  app.all('/{*any}', (req, res) => res.json({ body: req.body ?? null }));
  return app.listen(0, '127.0.0.1');
}

describe('body parsers (properties over HTTP)', () => {
  const server = echoApp();
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('hands any JSON body within the depth bound to the route unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.dictionary(fc.string().filter((k) => k !== '__proto__' && k !== 'constructor'), fc.jsonValue({ maxDepth: 6 })), fc.array(fc.jsonValue({ maxDepth: 6 }))), async (v) => {
        const res = await request(server).post('/v1/quotes').set('Content-Type', 'application/json').send(JSON.stringify(v)).expect(200);
        expect(res.body.body).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 60 },
    );
  });

  it('refuses any body nested deeper than the bound with 400 in the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: MAX_JSON_DEPTH + 1, max: 20_000 }), fc.constantFrom('/v1/quotes', '/v1/tasks', '/token'), async (depth, path) => {
        const res = await request(server).post(path).set('Content-Type', 'application/json').send('['.repeat(depth) + ']'.repeat(depth)).expect(400);
        expect(res.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('nested'), request_id: expect.any(String) } });
      }),
      { numRuns: 20 },
    );
  });

  it('refuses any non-JSON body on a JSON endpoint with 415, before the route runs', async () => {
    const type = fc.oneof(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=z', 'application/xml', 'text/json'), fc.stringMatching(/^[a-z]{1,8}\/[a-z]{1,8}$/).filter((t) => t !== 'application/json'));
    await fc.assert(
      fc.asyncProperty(type, fc.string({ minLength: 1 }), fc.constantFrom('/v1/quotes', '/v1/tasks', '/v1/uploads/prepare', '/v1/uploads/import'), async (t, body, path) => {
        const res = await request(server).post(path).set('Content-Type', t).send(body).expect(415);
        expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a JSON body in any charset other than UTF-8 with 415, whatever it holds', async () => {
    const charset = fc.oneof(
      fc.constantFrom('utf-7', 'UTF-7', 'utf-16', 'utf-16le', 'utf-16be', 'utf-32', 'utf8', 'latin1', 'iso-8859-1', '"utf-7"', 'cesu-8'),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/).filter((c) => c !== 'utf-8'),
    );
    await fc.assert(
      fc.asyncProperty(charset, fc.oneof(fc.constant('+AFs-'.repeat(3000) + '+AF0-'.repeat(3000)), fc.json()), fc.constantFrom('/v1/quotes', '/v1/tasks', '/mcp'), async (c, body, path) => {
        const res = await request(server).post(path).set('Content-Type', `application/json; charset=${c}`).send(body).expect(415);
        expect(res.body).toEqual({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('UTF-8'), request_id: expect.any(String) } });
      }),
      { numRuns: 60 },
    );
  });

  describe('with the routing table', () => {
    const routed = echoApp((path) => (path === '/v1/quotes' || path === '/token' ? ['POST'] : []));
    afterAll(() => new Promise<void>((r) => routed.close(() => r())));

    it('leaves the body of a method the path is not routed with unread, whatever its type, for routing to answer 405', async () => {
      const type = fc.oneof(fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'image/png'), fc.stringMatching(/^[a-z]{1,8}\/[a-z]{1,8}$/));
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('PUT', 'PATCH', 'DELETE'), fc.constantFrom('/v1/quotes', '/token'), type, fc.string({ minLength: 1 }), async (method, path, t, body) => {
          const res = await request(routed)[method.toLowerCase() as 'put' | 'patch' | 'delete'](path).set('Content-Type', t).send(body).expect(200);
          expect(res.body).toEqual({ body: null });
        }),
        { numRuns: 40 },
      );
    });

    it('still reads and checks the body of a routed method', async () => {
      await request(routed).post('/v1/quotes').set('Content-Type', 'application/json').send('{"a":1}').expect(200, { body: { a: 1 } });
      expect((await request(routed).post('/v1/quotes').set('Content-Type', 'text/plain').send('x').expect(415)).body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });
  });
});
