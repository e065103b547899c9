import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { AppError, Clock } from '@gensvc/kernel';
import { ConsoleOnly, CurrentPrincipal, OpenApiOperations, type Principal } from '@gensvc/http';
import { EventStore, SubscriptionEngine, caughtUp } from '@gensvc/event-sourcing';
import { CreateApiKeyHandler } from '../application/create-api-key/create-api-key.handler';
import { GetApiKeyHandler, type ApiKeyView } from '../application/get-api-key/get-api-key.handler';
import { ListApiKeysHandler } from '../application/list-api-keys/list-api-keys.handler';
import { RevokeApiKeyHandler } from '../application/revoke-api-key/revoke-api-key.handler';
import { API_KEYS_OPENAPI } from './api-keys.openapi';

function positiveInt(raw: unknown, name: string, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new AppError('VALIDATION_ERROR', `${name}: must be an integer from 1 to ${max}`);
  }
  return Number(raw);
}

function emptyBody(body: unknown): void {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length > 0)) {
    throw new AppError('VALIDATION_ERROR', 'body: must be an empty JSON object');
  }
}

/** The key as the read model holds it after a change this request waited for. */
const present = (view: ApiKeyView | null, id: string): ApiKeyView => {
  if (!view) throw new Error(`API key ${id} is missing from the read model`);
  return view;
};

/**
 * The account's API keys, managed from the web console: these routes answer only to an
 * OAuth access token of the console's own client (`@ConsoleOnly`), never to an API key or a
 * third-party token, so a leaked key or a connected application cannot mint more keys.
 */
@Controller('v1/api-keys')
@OpenApiOperations(API_KEYS_OPENAPI)
export class ApiKeysController {
  constructor(
    private readonly listApiKeys: ListApiKeysHandler,
    private readonly getApiKey: GetApiKeyHandler,
    private readonly createApiKey: CreateApiKeyHandler,
    private readonly revokeApiKey: RevokeApiKeyHandler,
    private readonly engine: SubscriptionEngine,
    private readonly events: EventStore,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ConsoleOnly('read')
  list(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    for (const k of Object.keys(query)) if (k !== 'page' && k !== 'limit') throw new AppError('VALIDATION_ERROR', `${k}: unknown query parameter`);
    const page = positiveInt(query.page, 'page', 100000, 1);
    const limit = positiveInt(query.limit, 'limit', 100, 30);
    return this.listApiKeys.execute({ account_id: p.accountId, page, limit });
  }

  @Post()
  @HttpCode(201)
  @ConsoleOnly('create')
  async create(@CurrentPrincipal() p: Principal, @Req() req: Request, @Body() body: unknown) {
    // A JSON endpoint: any other Content-Type (form, text, none) is 415 (CONTRACT §5).
    if (!req.is('application/json')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json (an empty JSON object)');
    emptyBody(body);
    const now = this.clock.now();
    const issued = await this.createApiKey.execute({ type: 'CreateApiKey', data: { account_id: p.accountId }, metadata: { now } });
    // The secret is shown this once: when the read models lag, the answer is built from the
    // command's own result rather than lost (the key authenticates once they caught up).
    if (!(await caughtUp(this.engine.waitFor(issued.position)))) {
      return { id: issued.keyId, status: 'active' as const, created_at: now.toISOString(), revoked_at: null, api_key: issued.apiKey };
    }
    const view = await this.getApiKey.execute({ account_id: p.accountId, key_id: issued.keyId });
    return { ...present(view, issued.keyId), api_key: issued.apiKey };
  }

  @Delete(':id')
  @ConsoleOnly('create')
  async revoke(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    if (!(await this.getApiKey.execute({ account_id: p.accountId, key_id: id }))) throw new AppError('NOT_FOUND', `API key ${id} not found`);
    const result = await this.revokeApiKey.execute({ type: 'RevokeApiKey', data: { key_id: id }, metadata: { now: this.clock.now() } });
    // The answer says the key no longer authenticates, which holds once the read models show
    // the revocation: when they lag, ProjectionLagError answers 503 (the revocation is stored;
    // a repeat, which appends nothing, waits for everything stored so far).
    await this.engine.waitFor(result.position ?? (await this.events.headPosition()));
    return present(await this.getApiKey.execute({ account_id: p.accountId, key_id: id }), id);
  }
}
