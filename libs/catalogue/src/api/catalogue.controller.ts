import { Controller, Get, Param, Query } from '@nestjs/common';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { AppError, OpenApiOperations, Public } from '@gensvc/shared';
import { Catalogue } from '../domain/catalogue';
import { modelView, priceViews } from '../application/catalogue.views';
import { CATALOGUE_OPENAPI } from './catalogue.openapi';

class ModelListQuery {
  @IsOptional() @IsString() @MaxLength(100) capability?: string;
  @IsOptional() @IsIn(['text', 'image', 'audio', 'video']) modality?: string;
}

/** The public catalogue: no credential needed. */
@Controller('v1')
@Public()
@OpenApiOperations(CATALOGUE_OPENAPI)
export class CatalogueController {
  constructor(private readonly catalogue: Catalogue) {}

  @Get('models')
  list(@Query() query: ModelListQuery) {
    const data = this.catalogue
      .models()
      .filter((m) => !query.capability || m.capabilities.includes(query.capability))
      .filter((m) => !query.modality || m.modality === query.modality)
      .map((m) => modelView(this.catalogue, m, false));
    return { data, page: 1, limit: Math.max(1, data.length), has_more: false };
  }

  @Get('models/:id')
  get(@Param('id') id: string) {
    const model = this.catalogue.model(id);
    if (!model) throw new AppError('NOT_FOUND', `model ${id} not found`);
    return modelView(this.catalogue, model, true);
  }

  @Get('capabilities')
  capabilities() {
    const data = this.catalogue.capabilities();
    return { data, page: 1, limit: Math.max(1, data.length), has_more: false };
  }

  @Get('prices')
  prices() {
    const data = this.catalogue.models().flatMap((m) => priceViews(this.catalogue, m));
    return { data, page: 1, limit: Math.max(1, data.length), has_more: false };
  }
}
