import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { NotificationSettings } from '@gensvc/notifications';
import { bearer, createAccount, type TestAccount } from './support/accounts';
import { startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { buildConsole, freePort, openBrowser, seriousViolations, type Browser } from './console/browser';

/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against the
 * whole service: sign-in through /authorize, wallet, uploads and previews, a task from the
 * models page, filters, cancel, API keys, webhook endpoints (a loopback receiver gets the
 * signed deliveries); no console errors; axe-core on every page.
 * CONSOLE_SCREENSHOTS=1 also writes the README screenshots to docs/.
 */
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';
const SHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? join(__dirname, '..', 'docs', 'screenshots') : null;

describe('web console (Chromium)', () => {
  let t: TestApp;
  let base: string;
  let account: TestAccount;
  let browser: Browser;
  let page: Page;
  const violations: string[] = [];
  let receiver: WebhookReceiver;
  let rotated = '';
  let endpointId = '';

  const api = () => t.http();
  const check = async () => {
    violations.push(...(await seriousViolations(page)));
  };
  const shot = async (name: string) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  };
  const go = async (path: string, heading: string | RegExp) => {
    await page.goto(`${base}${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };

  beforeAll(async () => {
    buildConsole();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ port, env: { PUBLIC_BASE_URL: base, LOCAL_SUPPLIER_DELAY_MS: '2500' } });
    account = await createAccount(t, { name: 'Ada', email: EMAIL, password: PASSWORD, credit: '100.00' });
    // the receiver listens on loopback, as with WEBHOOKS_ALLOW_LOCAL=1
    t.app.get(NotificationSettings).allowLocal = true;
    receiver = await new WebhookReceiver().start();
    browser = await openBrowser();
    page = browser.page;
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  it('the accessibility check finds what it should (a control without a name, an image without alt text)', async () => {
    const probe = await browser.context.newPage();
    await probe.setContent('<html lang="en"><title>probe</title><main><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><button></button></main></html>');
    const found = await seriousViolations(probe);
    await probe.close();
    expect(found.join('\n')).toMatch(/image-alt/);
    expect(found.join('\n')).toMatch(/button-name/);
  });

  it('serves the app at /console/ with a strict CSP, immutable hashed assets and a revalidated index', async () => {
    const index = await api().get('/console/tasks/task_x').expect(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.headers['cache-control']).toBe('no-cache');
    const csp = index.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(index.text)![1];
    const asset = await api().get(script).expect(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    await api().get('/console').expect(301).expect('Location', '/console/');
    await api().get('/console/not-a-page').expect(404);
  });

  it('sends an unsigned visit to /authorize and comes back signed in, showing the balance', async () => {
    await page.goto(`${base}/console/`);
    await page.waitForURL(/\/authorize\?/);
    await page.getByRole('heading', { level: 1, name: 'Sign in to continue' }).waitFor();
    expect(await page.getByText('gensvc console', { exact: false }).first().isVisible()).toBe(true);
    violations.push(...(await seriousViolations(page)));
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow access' }).waitFor();
    expect(await page.getByText('See your account').isVisible()).toBe(true);
    expect(await page.getByText('Spend money and change your files').isVisible()).toBe(true);
    expect(await page.getByText(`${base}/console/callback`).isVisible()).toBe(true);
    violations.push(...(await seriousViolations(page)));
    await shot('consent');
    await page.getByRole('button', { name: 'Allow access' }).click();
    await page.waitForURL(`${base}/console/`);
    await expect(page.getByTestId('balance').textContent()).resolves.toBe('¥100.000000');
    await expect(page.getByTestId('available').textContent()).resolves.toBe('¥100.000000');
    await expect(page.getByTestId('reserved').textContent()).resolves.toBe('¥0.000000');
    await check();
  });

  it('stays signed in across a reload and a typed address; the access token is not stored', async () => {
    await page.reload();
    await page.getByTestId('balance').waitFor();
    await page.goto(`${base}/console/billing`);
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    expect(page.url()).toBe(`${base}/console/billing`);
    const stored = await page.evaluate('({ session: Object.keys(sessionStorage), local: Object.keys(localStorage), cookie: document.cookie })');
    expect(stored).toEqual({ session: ['gensvc.console.refresh_token'], local: [], cookie: '' });
    await check();
  });

  it('uploads a 300 KiB text file with a progress bar and previews only its first 128 KiB', async () => {
    await go('/console/assets', 'Assets');
    await check();
    const line = 'The quick brown fox jumps over the lazy dog. 0123456789 abcdefghij\n'; // 68 bytes
    const text = line.repeat(Math.ceil((300 * 1024) / line.length)).slice(0, 300 * 1024);
    const ranges: (string | undefined)[] = [];
    page.on('request', (r) => {
      if (/\/v1\/assets\/[^/]+\/content/.test(r.url())) ranges.push(r.headers()['range']);
    });
    const put = page.waitForRequest((r) => r.method() === 'PUT' && /\/v1\/uploads\/[^/]+\/content$/.test(r.url()));
    await page.getByLabel('Upload files').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(text) });
    expect((await put).headers()['x-upload-token']).toBeTruthy();
    const item = page.getByTestId('upload-item').first();
    await item.getByRole('progressbar', { name: 'Upload of notes.txt' }).waitFor();
    await item.getByText('Uploaded').waitFor();
    expect(await item.getByRole('progressbar').getAttribute('value')).toBe('100');
    await item.getByText(/SHA-256 [0-9a-f]{64}/).waitFor();
    await item.getByRole('link', { name: 'Open the file' }).click();
    await page.getByRole('heading', { level: 1, name: 'notes.txt' }).waitFor();
    const note = page.getByTestId('preview-note');
    await note.waitFor();
    expect(await note.textContent()).toContain('the first 128 KiB of 300 KiB');
    const pre = page.getByTestId('preview-text');
    expect(await pre.getAttribute('data-bytes')).toBe(String(128 * 1024));
    expect((await pre.textContent())!.length).toBe(128 * 1024);
    expect(ranges).toEqual(['bytes=0-131071']);
    // the download is the whole file
    const href = await page.getByRole('link', { name: /Download the whole file/ }).getAttribute('href');
    const whole = await page.request.get(href!);
    expect((await whole.body()).length).toBe(300 * 1024);
    expect(whole.headers()['content-disposition']).toMatch(/^attachment/);
    await check();
    await shot('asset-preview');
  });

  it('uploads through the SDK: the type from the bytes, the SHA-256 from Web Crypto, a broken transfer sent again to the same upload', async () => {
    await go('/console/assets', 'Assets');
    const body = Buffer.from('{"fox": {"colour": "red", "legs": 4}}\n');
    const prepares: Record<string, unknown>[] = [];
    const puts: string[] = [];
    const onRequest = (r: { method(): string; url(): string; postDataJSON(): unknown }) => {
      if (r.method() === 'POST' && r.url().endsWith('/v1/uploads/prepare')) prepares.push(r.postDataJSON() as Record<string, unknown>);
      if (r.method() === 'PUT') puts.push(r.url());
    };
    page.on('request', onRequest);
    // The first transfer breaks off: the SDK reads the upload again and sends the file again.
    let broken = 0;
    await page.route('**/v1/uploads/*/content', (route) => (broken++ === 0 ? route.abort('connectionreset') : route.continue()));
    const errorsBefore = browser.errors.length;
    // The browser knows no type for this name; the SDK reads it from the bytes.
    await page.getByLabel('Upload files').setInputFiles({ name: 'fox-facts', mimeType: 'application/octet-stream', buffer: body });
    const item = page.getByTestId('upload-item').first();
    await item.getByText('Uploaded').waitFor();
    await page.unroute('**/v1/uploads/*/content');
    page.off('request', onRequest);
    // the one console error is the broken transfer this test caused
    const caused = browser.errors.splice(errorsBefore);
    expect(caused.every((e) => /ERR_CONNECTION_RESET/.test(e))).toBe(true);
    const checksum = createHash('sha256').update(body).digest('hex');
    await item.getByText(`SHA-256 ${checksum}`).waitFor();
    expect(await item.getByText('application/json').count()).toBe(1);
    expect(prepares).toEqual([{ name: 'fox-facts', mime: 'application/json', size: body.length, checksum, idempotency_key: expect.any(String) }]);
    expect(puts).toHaveLength(2);
    expect(new Set(puts).size).toBe(1);
    await item.getByRole('link', { name: 'Open the file' }).click();
    await page.getByRole('heading', { level: 1, name: 'fox-facts' }).waitFor();
    await page.getByTestId('preview-text').waitFor();
    expect(await page.getByTestId('preview-text').textContent()).toContain('"colour": "red"'); // pretty-printed JSON
    await check();
  });

  it('runs a task from the models page after showing the quote, and watches it succeed', async () => {
    await go('/console/models', 'Models');
    await check();
    await page.getByRole('link', { name: 'Run Text Writer Lite' }).click();
    await page.getByRole('heading', { name: /^Run Text Writer Lite/ }).waitFor();
    await page.getByLabel(/Prompt/).fill('A short poem about paper boats.');
    await page.getByLabel('Tone').selectOption('casual');
    await page.getByLabel(/Title/).fill('Paper boats');
    const quoted = page.waitForResponse((r) => r.url().endsWith('/v1/quotes') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Get a quote' }).click();
    const quote = await (await quoted).json();
    expect(quote.estimated_amount).toMatch(/^\d+\.\d{6}$/);
    await page.getByTestId('quote').waitFor();
    expect(await page.getByTestId('quote-estimated').textContent()).toBe(`¥${quote.estimated_amount}`);
    expect(await page.getByTestId('quote-max').textContent()).toBe(`¥${quote.max_amount}`);
    await check();
    await page.getByRole('button', { name: `Confirm and run for ¥${quote.estimated_amount}` }).click();
    await page.waitForURL(/\/console\/tasks\/task_[a-z0-9]+$/);
    const status = page.getByTestId('task-detail-status');
    await status.getByText(/^(Queued|Running)$/).waitFor();
    await check();
    await status.getByText('Succeeded').waitFor({ timeout: 30_000 });
    await page.getByText('Settled').waitFor();
    const id = page.url().split('/').pop()!;
    const task = (await api().get(`/v1/tasks/${id}`).set(bearer(account)).expect(200)).body;
    expect(task).toMatchObject({ status: 'succeeded', title: 'Paper boats', quote_id: quote.quote_id, charged_amount: quote.estimated_amount });
    await page.getByText(`¥${task.charged_amount}`).first().waitFor();
    await page.getByTestId('preview-text').first().waitFor();
    await check();
    await shot('task');
  });

  async function apiTask(title: string, prompt: string) {
    const q = await api().post('/v1/quotes').set(bearer(account)).send({ model: 'text-writer-lite', capability: 'text.generate', input: { prompt } }).expect(200);
    return (await api().post('/v1/tasks').set(bearer(account)).set('Idempotency-Key', `console-e2e-${title}`).send({ quote_id: q.body.quote_id, title }).expect(202)).body as { id: string };
  }

  it('filters tasks and cancels one', async () => {
    const doomed = await apiTask('Cancel me', 'never mind');
    await go('/console/tasks', 'Tasks');
    const row = page.locator(`tr[data-task-id="${doomed.id}"]`);
    await row.waitFor();
    await check();
    await row.getByRole('button', { name: 'Cancel task Cancel me' }).click();
    await row.getByTestId('task-status').getByText('Canceled').waitFor({ timeout: 30_000 });
    expect((await api().get(`/v1/tasks/${doomed.id}`).set(bearer(account)).expect(200)).body).toMatchObject({ status: 'canceled', charged_amount: '0.000000', settlement_status: 'released' });

    // status filter: only the succeeded task, in the address too
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=succeeded/);
    await page.locator(`tr[data-task-id="${doomed.id}"]`).waitFor({ state: 'detached' });
    const statuses = await page.getByTestId('task-status').allTextContents();
    expect(statuses).toEqual(['Succeeded']);
    // search by title, and a filter that matches nothing
    await page.goto(`${base}/console/tasks?q=${encodeURIComponent('Cancel me')}`);
    await page.locator(`tr[data-task-id="${doomed.id}"]`).waitFor();
    expect(await page.getByTestId('task-status').count()).toBe(1);
    await page.goto(`${base}/console/tasks?modality=image`);
    await page.getByText('No tasks match these filters.').waitFor();
    await check();
  });

  it('shows billing totals exactly and the voices page', async () => {
    await go('/console/billing', 'Billing');
    const totals = page.getByTestId('billing-totals');
    await totals.waitFor();
    const bills = (await api().get('/v1/billing?limit=100').set(bearer(account)).expect(200)).body.data as { charged_amount: string | null; released_amount: string | null }[];
    // one task succeeded and one was canceled (charged 0.000000): the total is the one charge, to the last digit
    const charged = bills.map((b) => b.charged_amount).filter((a): a is string => a !== null && a !== '0.000000');
    expect(charged).toHaveLength(1);
    expect(await totals.getByTestId('total-charged').textContent()).toBe(`¥${charged[0]}`);
    const micros = bills.reduce((sum, b) => sum + BigInt((b.released_amount ?? '0.000000').replace('.', '')), 0n);
    const released = `${micros / 1_000_000n}.${String(micros % 1_000_000n).padStart(6, '0')}`;
    expect(await totals.getByTestId('total-released').textContent()).toBe(`¥${released}`);
    expect(await page.getByText('2 bills matching the filters').count()).toBe(1);
    await check();
    await go('/console/voices', 'Voices');
    await page.getByText('No voices yet.').waitFor();
    await check();
  });

  it('creates an API key shown once and revokes it; the key routes refuse API keys', async () => {
    await go('/console/developers', 'Developers');
    await check();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const secret = page.getByTestId('api-key-secret');
    await secret.waitFor();
    const key = (await secret.locator('code').textContent())!;
    expect(key).toMatch(/^gsk_/);
    await api().get('/v1/wallet').set(bearer(key)).expect(200);
    // an API key cannot manage keys, not even its own account's
    const refused = await api().post('/v1/api-keys').set(bearer(key)).send({}).expect(403);
    expect(refused.body.error.code).toBe('INSUFFICIENT_SCOPE');
    await check();
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await secret.waitFor({ state: 'detached' });
    const keyId = `key_${key.split('_')[1]}`;
    const row = page.locator(`tr[data-key-id="${keyId}"]`);
    await row.getByRole('button', { name: `Revoke ${keyId}` }).click();
    await row.getByRole('button', { name: 'Revoke now' }).click();
    await row.getByText('Revoked').waitFor();
    await api().get('/v1/wallet').set(bearer(key)).expect(401);
  });

  it('creates a webhook endpoint with its secret shown once and rotates it', async () => {
    await go('/console/developers', 'Developers');
    await page.getByRole('heading', { level: 2, name: 'Webhook endpoints' }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    await check();
    const url = `${receiver.url}/hooks/console`;
    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByLabel(/Description/).fill('Paper boats shop');
    await page.getByLabel('All events').uncheck();
    await page.getByLabel('task.failed').uncheck();
    expect(await page.getByLabel('task.succeeded').isChecked()).toBe(true);
    const created = page.waitForResponse((r) => r.url().endsWith('/v1/webhook-endpoints') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const response = await created;
    expect(response.status()).toBe(201);
    const ep = (await response.json()) as { id: string; secret: string; events: string[] };
    expect(ep.events).toEqual(['task.succeeded']);
    const secret = page.getByTestId('webhook-secret');
    await secret.waitFor();
    const first = (await secret.locator('code').textContent())!;
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(first).toBe(ep.secret);
    const item = page.getByTestId('webhook-endpoint').filter({ hasText: url });
    await item.getByText('Enabled').waitFor();
    expect(await item.getByText('Paper boats shop · task.succeeded').count()).toBe(1);
    await check();
    // shown once: neither the list nor the endpoint carries it afterwards
    await secret.getByRole('button', { name: 'I have saved it' }).click();
    await secret.waitFor({ state: 'detached' });
    await page.reload();
    await item.waitFor();
    expect(await page.getByText(first).count()).toBe(0);
    expect((await api().get(`/v1/webhook-endpoints/${ep.id}`).set(bearer(account)).expect(200)).body.secret).toBeUndefined();

    await item.getByRole('button', { name: 'Rotate secret' }).click();
    await secret.waitFor();
    rotated = (await secret.locator('code').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(first);
    expect(await secret.getByText(`New signing secret of ${url}`).count()).toBe(1);
    await check();
    await secret.getByRole('button', { name: 'I have saved it' }).click();
    endpointId = ep.id;
  });

  it('shows an endpoint\'s deliveries with their attempts and sends one again with the same message id', async () => {
    const task = await apiTask('Webhook me', 'a haiku about hooks');
    const message = await receiver.until((r) => r.find((m) => m.path === '/hooks/console'), 30_000);
    // signed with the rotated secret (the old one also signs for a day)
    const body = new Webhook(rotated).verify(message.body, message.headers as Record<string, string>) as { type: string; data: { id: string } };
    expect(body).toMatchObject({ type: 'task.succeeded', data: { id: task.id } });
    const messageId = message.headers['webhook-id'] as string;

    await go('/console/developers', 'Developers');
    const item = page.getByTestId('webhook-endpoint').filter({ hasText: `${receiver.url}/hooks/console` });
    await item.locator('summary', { hasText: 'Deliveries' }).click();
    const delivery = item.getByTestId('webhook-delivery').filter({ hasText: messageId });
    await delivery.getByText('Delivered').waitFor();
    expect(await delivery.getByText('task.succeeded').count()).toBe(1);
    await expect(delivery.getByTestId('webhook-attempt').count()).resolves.toBe(1);
    expect(await delivery.getByTestId('webhook-attempt').first().locator('td').nth(1).textContent()).toBe('204');
    await check();
    await delivery.scrollIntoViewIfNeeded();
    await page.evaluate('window.scrollBy(0, 200)');
    await shot('webhooks');

    const deliveryId = (await delivery.getAttribute('data-delivery-id'))!;
    await delivery.getByRole('button', { name: `Send again: task.succeeded delivery ${deliveryId}` }).click();
    await item.getByText(`Delivery ${deliveryId} is queued to be sent again (same message id).`).waitFor();
    const again = await receiver.until((r) => {
      const got = r.filter((m) => m.path === '/hooks/console');
      return got.length >= 2 && got;
    });
    expect(again.map((m) => m.headers['webhook-id'])).toEqual([messageId, messageId]);
    // the page looks again while the delivery waits, and shows the second attempt
    await delivery.getByTestId('webhook-attempt').nth(1).waitFor({ timeout: 20_000 });
    await delivery.getByText('Delivered').waitFor();
    const d = (await api().get(`/v1/webhook-endpoints/${endpointId}/deliveries`).set(bearer(account)).expect(200)).body.data as { id: string; attempts: unknown[] }[];
    expect(d.map((x) => [x.id, x.attempts.length])).toEqual([[deliveryId, 2]]);
    await check();
  });

  it('works at phone width: no sideways scrolling, navigation reachable', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, heading] of [
      ['/console/', 'Overview'],
      ['/console/tasks', 'Tasks'],
      ['/console/models', 'Models'],
    ] as const) {
      await go(path, heading);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect({ path, overflow }).toEqual({ path, overflow: 0 });
      await check();
    }
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Assets' }).click();
    await page.getByRole('heading', { level: 1, name: 'Assets' }).waitFor();
    await page.setViewportSize({ width: 1280, height: 860 });
    await go('/console/', 'Overview');
    await shot('overview');
  });

  it('is keyboard usable: skip link, then focus moves to the new page', async () => {
    await go('/console/', 'Overview');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement?.id')).toBe('main');
    await page.getByRole('link', { name: 'Billing' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    // Focus moves once the new page has rendered (an effect after the heading appears).
    await page.waitForFunction("document.activeElement?.id === 'main'", undefined, { timeout: 5000 }).catch(() => undefined);
    expect(await page.evaluate<string>('document.activeElement?.id')).toBe('main');
    expect(await page.title()).toBe('Billing · gensvc console');
  });

  it('signs out: revokes the grant, forgets the tokens', async () => {
    await go('/console/', 'Overview');
    const refresh = await page.evaluate<string | null>("sessionStorage.getItem('gensvc.console.refresh_token')");
    expect(refresh).toBeTruthy();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    expect(await page.evaluate<string[]>('Object.keys(sessionStorage)')).toEqual([]);
    await check();
    const reuse = await api().post('/token').type('form').send({ grant_type: 'refresh_token', refresh_token: refresh, client_id: 'client_gensvcconsole' });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
  });

  it('had no console errors and no serious or critical accessibility violations', () => {
    expect(browser.errors).toEqual([]);
    expect(violations).toEqual([]);
  });
});
