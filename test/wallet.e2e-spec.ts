import { ADMIN_CLI, buildApps, oneJson, runCli } from './support/operations-cli';
import { startTestApp, expectError, type TestApp } from './support/test-app';
import { bearer, createAccount } from './support/accounts';

describe('GET /v1/wallet and the admin wallet credit', () => {
  let t: TestApp;
  const admin = (...args: string[]) => runCli(ADMIN_CLI, args, { DATA_DIR: t.dataDir, LOCAL_SUPPLIER_DELAY_MS: '50' });

  beforeAll(async () => {
    buildApps(ADMIN_CLI);
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('shows exactly four fields, zero for a new account', async () => {
    const acc = await createAccount(t);
    const res = await t.http().get('/v1/wallet').set(bearer(acc)).expect(200);
    expect(res.body).toEqual({ currency: 'CNY', balance: '0.000000', reserved: '0.000000', available: '0.000000' });
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('needs a credential', async () => {
    expectError((await t.http().get('/v1/wallet').expect(401)).body, 'UNAUTHORIZED');
  });

  it('credits through the admin CLI: prints the wallet object, visible over HTTP within a second', async () => {
    const acc = await createAccount(t, { credit: '1.5' });
    const run = await admin('wallet', 'credit', '--account', acc.accountId, '--amount', '2.25', '--reason', 'promotion');
    expect(run.code).toBe(0);
    expect(oneJson(run.stdout)).toEqual({ currency: 'CNY', balance: '3.750000', reserved: '0.000000', available: '3.750000' });
    const until = Date.now() + 1000;
    let body: Record<string, string> = {};
    while (Date.now() < until) {
      body = (await t.http().get('/v1/wallet').set(bearer(acc)).expect(200)).body;
      if (body.balance === '3.750000') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(body).toEqual({ currency: 'CNY', balance: '3.750000', reserved: '0.000000', available: '3.750000' });
  });

  it.each([
    [['--amount', '0'], 'VALIDATION_ERROR'],
    [['--amount', '-1'], 'VALIDATION_ERROR'],
    [['--amount', '1.1234567'], 'VALIDATION_ERROR'],
    [['--amount', 'ten'], 'VALIDATION_ERROR'],
    [[], 'USAGE'],
  ])('refuses a credit with %j: one error JSON, non-zero exit', async (extra, code) => {
    const acc = await createAccount(t);
    const run = await admin('wallet', 'credit', '--account', acc.accountId, ...extra);
    expect(run.code).not.toBe(0);
    expect(oneJson(run.stdout)).toMatchObject({ error: { code, message: expect.any(String) } });
  });

  it('refuses a credit to an unknown account', async () => {
    const run = await admin('wallet', 'credit', '--account', 'acc_nope', '--amount', '1');
    expect(run.code).not.toBe(0);
    expect(oneJson(run.stdout)).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});
