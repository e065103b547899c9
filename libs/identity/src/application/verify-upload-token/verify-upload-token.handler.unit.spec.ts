import { FixedClock } from '@gensvc/kernel';
import { type AppConfig } from '@gensvc/config';
import type { Authenticator } from '../authenticate/authenticator';
import { IssueUploadTokenHandler } from '../issue-upload-token/issue-upload-token.handler';
import { UploadTokenSigner } from '../upload-token-signer';
import { VerifyUploadTokenHandler } from './verify-upload-token.handler';

describe('upload tokens: IssueUploadTokenHandler and VerifyUploadTokenHandler', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');
  const signer = new UploadTokenSigner({ signingSecret: 's'.repeat(32) } as AppConfig);
  const issuer = new IssueUploadTokenHandler(signer);
  let clock: FixedClock;
  let valid: Set<string>;
  let verifier: VerifyUploadTokenHandler;
  const issue = (uploadId: string, expiresAt: Date) =>
    issuer.execute({ type: 'IssueUploadToken', data: { account_id: 'acc_1', connection_id: 'key_1', upload_id: uploadId, expires_at: expiresAt }, metadata: { now } });

  beforeEach(() => {
    clock = new FixedClock(now);
    valid = new Set(['acc_1/key_1']);
    const auth = { connectionValid: async (a: string, c: string) => valid.has(`${a}/${c}`) } as unknown as Authenticator;
    verifier = new VerifyUploadTokenHandler(signer, clock, auth);
  });

  it('a token is the principal of its own upload only', async () => {
    const token = await issue('up_1', new Date(now.getTime() + 60_000));
    expect(token).toMatch(/^gsu_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(await verifier.execute({ token, upload_id: 'up_1' })).toEqual({ accountId: 'acc_1', kind: 'upload_token', connectionId: 'key_1', scopes: [], uploadId: 'up_1' });
    expect(await verifier.execute({ token, upload_id: 'up_2' })).toBeNull();
    expect(await verifier.execute({ token, upload_id: undefined })).toBeNull();
  });

  it('refuses a token signed with another key, altered, or malformed', async () => {
    const token = await issue('up_1', new Date(now.getTime() + 60_000));
    const other = await new IssueUploadTokenHandler(new UploadTokenSigner({ signingSecret: 't'.repeat(32) } as AppConfig)).execute({
      type: 'IssueUploadToken',
      data: { account_id: 'acc_1', connection_id: 'key_1', upload_id: 'up_1', expires_at: new Date(now.getTime() + 60_000) },
      metadata: { now },
    });
    const [body, sig] = token.slice(4).split('.');
    const forged = `gsu_${Buffer.from(JSON.stringify({ u: 'up_1', a: 'acc_2', c: 'key_1', e: now.getTime() + 60_000 })).toString('base64url')}.${sig}`;
    for (const bad of [other, forged, `${token}.x`, `gsu_${body}`, token.slice(4), undefined]) expect(await verifier.execute({ token: bad, upload_id: 'up_1' })).toBeNull();
  });

  it('still identifies its holder for a day after its expiry, then no more', async () => {
    const token = await issue('up_1', now);
    clock.set(new Date(now.getTime() + 24 * 3600_000 - 1));
    expect(await verifier.execute({ token, upload_id: 'up_1' })).not.toBeNull();
    clock.set(new Date(now.getTime() + 24 * 3600_000));
    expect(await verifier.execute({ token, upload_id: 'up_1' })).toBeNull();
  });

  it('stops working when the account or the connection is no longer valid', async () => {
    const token = await issue('up_1', new Date(now.getTime() + 60_000));
    valid.clear();
    expect(await verifier.execute({ token, upload_id: 'up_1' })).toBeNull();
  });
});
