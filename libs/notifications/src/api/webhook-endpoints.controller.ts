import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { CurrentPrincipal, OpenApiOperations, type Principal, RequireScope } from '@gensvc/http';
import { DeliveriesService } from '../application/deliveries/deliveries.service';
import { EndpointsService } from '../application/endpoints/endpoints.service';
import { WEBHOOK_ENDPOINTS_OPENAPI } from './webhook-endpoints.openapi';

/** POST /v1/webhook-endpoints: `{url, events, description?}`, no other fields. */
export class CreateWebhookEndpointDto {
  @IsString() url!: string;
  /** Event types (checked by the service) or ["*"]. */
  @IsArray() events!: string[];
  @IsOptional() @IsString() description?: string;
}

class PageQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100000) page?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
}

/**
 * The caller's webhook endpoints (CONTRACT §10). Creating one needs read and create: its
 * messages carry task objects (titles, outputs, asset ids), so a create-only grant could read
 * through an endpoint of its own what it may not read through the API.
 */
@Controller('v1/webhook-endpoints')
@OpenApiOperations(WEBHOOK_ENDPOINTS_OPENAPI)
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly deliveries: DeliveriesService,
  ) {}

  @Post()
  @RequireScope('read', 'create')
  @HttpCode(201)
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateWebhookEndpointDto) {
    return this.endpoints.create(p.accountId, body);
  }

  @Get()
  @RequireScope('read')
  list(@CurrentPrincipal() p: Principal, @Query() query: PageQuery) {
    return this.endpoints.list(p.accountId, { page: query.page ?? 1, limit: query.limit ?? 30 });
  }

  @Get(':id')
  @RequireScope('read')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.get(p.accountId, id);
  }

  @Delete(':id')
  @RequireScope('create')
  @HttpCode(200)
  delete(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.delete(p.accountId, id);
  }

  @Post(':id/rotate-secret')
  @RequireScope('create')
  @HttpCode(200)
  rotate(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.endpoints.rotate(p.accountId, id);
  }

  @Get(':id/deliveries')
  @RequireScope('read')
  listDeliveries(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() query: PageQuery) {
    return this.deliveries.list(p.accountId, id, { page: query.page ?? 1, limit: query.limit ?? 30 });
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @RequireScope('create')
  @HttpCode(202)
  retry(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Param('delivery_id') deliveryId: string) {
    return this.deliveries.retry(p.accountId, id, deliveryId);
  }
}
