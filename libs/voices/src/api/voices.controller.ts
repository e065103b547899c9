import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { Clock } from '@gensvc/kernel';
import { CurrentPrincipal, OpenApiOperations, type Principal, RequireScope } from '@gensvc/http';
import { DeleteVoiceHandler } from '../application/delete-voice/delete-voice.handler';
import { GetVoiceHandler } from '../application/get-voice/get-voice.handler';
import { ListVoicesHandler } from '../application/list-voices/list-voices.handler';
import { VOICES_OPENAPI } from './voices.openapi';

class VoiceListQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100000) page?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @IsIn(['active', 'deleting', 'deleted']) status?: 'active' | 'deleting' | 'deleted';
}

/** The caller's voices: list, read (with deletion state), delete (queued, 202). */
@Controller('v1/voices')
@OpenApiOperations(VOICES_OPENAPI)
export class VoicesController {
  constructor(
    private readonly listVoices: ListVoicesHandler,
    private readonly getVoice: GetVoiceHandler,
    private readonly deleteVoice: DeleteVoiceHandler,
    private readonly clock: Clock,
  ) {}

  @Get()
  @RequireScope('read')
  list(@CurrentPrincipal() p: Principal, @Query() query: VoiceListQuery) {
    return this.listVoices.execute({ account_id: p.accountId, page: query.page ?? 1, limit: query.limit ?? 30, status: query.status });
  }

  @Get(':id')
  @RequireScope('read')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.getVoice.execute({ account_id: p.accountId, voice_id: id });
  }

  @Delete(':id')
  @RequireScope('create')
  @HttpCode(202)
  delete(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.deleteVoice.execute({ type: 'DeleteVoice', data: { account_id: p.accountId, voice_id: id }, metadata: { now: this.clock.now() } });
  }
}
