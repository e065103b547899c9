import type { Request } from 'express';
import { EventStore, ProjectionLagError, type SubscriptionEngine } from '@gensvc/event-sourcing';
import { FixedClock } from '@gensvc/kernel';
import type { Principal } from '@gensvc/http';
import type { CreateApiKeyHandler } from '../application/create-api-key/create-api-key.handler';
import type { GetApiKeyHandler } from '../application/get-api-key/get-api-key.handler';
import type { ListApiKeysHandler } from '../application/list-api-keys/list-api-keys.handler';
import type { RevokeApiKeyHandler } from '../application/revoke-api-key/revoke-api-key.handler';
import { ApiKeysController } from './api-keys.controller';

describe('ApiKeysController when the read models lag', () => {
  const principal = { accountId: 'acc_1' } as Principal;
  const req = { is: () => 'application/json' } as unknown as Request;
  const lagging = { waitFor: async (position?: bigint) => Promise.reject(new ProjectionLagError(position ?? 0n, -1n, 5000)) } as unknown as SubscriptionEngine;
  const events = { headPosition: async () => 7n } as unknown as EventStore;
  const issued = { keyId: 'key_0123456789ab', apiKey: 'gsk_secret', position: 8n };
  const createdAt = '2026-03-01T10:00:00.000Z';

  it('answers a new key from the command itself: the secret, shown once, is not lost', async () => {
    const getApiKey = { execute: jest.fn(async () => null) };
    const controller = new ApiKeysController(
      {} as ListApiKeysHandler,
      getApiKey as unknown as GetApiKeyHandler,
      { execute: async () => issued } as unknown as CreateApiKeyHandler,
      {} as RevokeApiKeyHandler,
      lagging,
      events,
      new FixedClock(new Date('2026-03-01T10:00:00.000Z')),
    );
    expect(await controller.create(principal, req, {})).toEqual({ id: issued.keyId, status: 'active', created_at: createdAt, revoked_at: null, api_key: 'gsk_secret' });
    expect(getApiKey.execute).not.toHaveBeenCalled();
  });

  it('answers a revocation with ProjectionLagError (503): the key authenticates until the read models show it', async () => {
    const view = { id: issued.keyId, status: 'active', created_at: createdAt, revoked_at: null };
    const controller = new ApiKeysController(
      {} as ListApiKeysHandler,
      { execute: async () => view } as unknown as GetApiKeyHandler,
      {} as CreateApiKeyHandler,
      { execute: async () => ({ keyId: issued.keyId, revoked: true, position: undefined }) } as unknown as RevokeApiKeyHandler,
      lagging,
      events,
      new FixedClock(new Date('2026-03-01T10:00:00.000Z')),
    );
    const err = await controller.revoke(principal, issued.keyId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectionLagError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', position: 7n });
  });
});
