import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { AppError, ConsoleOnly, CurrentPrincipal, OpenApiOperations, type Principal, ReadStore, SubscriptionEngine } from '@gensvc/shared';
import { AccountsService } from '../application/create-account/create-account.handler';
import { API_KEYS, type ApiKeyDoc } from '../application/read-models';
import { API_KEYS_OPENAPI } from './api-keys.openapi';

/** An API key as the console lists it (the secret is never stored, so never shown again). */
export interface ApiKeyView {
  id: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}

const view = (d: ApiKeyDoc): ApiKeyView => ({ id: d._id, status: d.status, created_at: d.issued_at, revoked_at: d.revoked_at });

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

/**
 * The account's API keys, managed from the web console: these routes answer only to an
 * OAuth access token of the console's own client (`@ConsoleOnly`), never to an API key or a
 * third-party token, so a leaked key or a connected application cannot mint more keys.
 */
@Controller('v1/api-keys')
@OpenApiOperations(API_KEYS_OPENAPI)
export class ApiKeysController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly readStore: ReadStore,
    private readonly engine: SubscriptionEngine,
  ) {}

  @Get()
  @ConsoleOnly('read')
  async list(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    for (const k of Object.keys(query)) if (k !== 'page' && k !== 'limit') throw new AppError('VALIDATION_ERROR', `${k}: unknown query parameter`);
    const page = positiveInt(query.page, 'page', 100000, 1);
    const limit = positiveInt(query.limit, 'limit', 100, 30);
    const docs = await this.readStore
      .collection<ApiKeyDoc>(API_KEYS)
      .find({ account_id: p.accountId }, { sort: { issued_at: -1, _id: -1 }, skip: (page - 1) * limit, limit: limit + 1 });
    return { data: docs.slice(0, limit).map(view), page, limit, has_more: docs.length > limit };
  }

  @Post()
  @HttpCode(201)
  @ConsoleOnly('create')
  async create(@CurrentPrincipal() p: Principal, @Req() req: Request, @Body() body: unknown) {
    // A JSON endpoint: any other Content-Type (form, text, none) is 415 (CONTRACT §5).
    if (!req.is('application/json')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json (an empty JSON object)');
    emptyBody(body);
    const issued = await this.accounts.issueApiKey(p.accountId);
    await this.engine.waitFor(issued.position);
    const doc = await this.readStore.collection<ApiKeyDoc>(API_KEYS).findOne({ _id: issued.keyId });
    return { ...view(doc!), api_key: issued.apiKey };
  }

  @Delete(':id')
  @ConsoleOnly('create')
  async revoke(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    const keys = this.readStore.collection<ApiKeyDoc>(API_KEYS);
    const doc = typeof id === 'string' && /^key_[0-9a-z]{10,40}$/i.test(id) ? await keys.findOne({ _id: id }) : null;
    if (!doc || doc.account_id !== p.accountId) throw new AppError('NOT_FOUND', `API key ${id} not found`);
    const result = await this.accounts.revokeApiKey(id);
    if (result.position !== undefined) await this.engine.waitFor(result.position);
    return view((await keys.findOne({ _id: id }))!);
  }
}
