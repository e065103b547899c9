import { Controller, Get, Param, Query } from '@nestjs/common';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { OpenApiOperations, Public } from '@gensvc/http';
import { GetModelHandler } from '../application/get-model/get-model.handler';
import { ListCapabilitiesHandler } from '../application/list-capabilities/list-capabilities.handler';
import { ListModelsHandler } from '../application/list-models/list-models.handler';
import { ListPricesHandler } from '../application/list-prices/list-prices.handler';
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
  constructor(
    private readonly listModels: ListModelsHandler,
    private readonly getModel: GetModelHandler,
    private readonly listCapabilities: ListCapabilitiesHandler,
    private readonly listPrices: ListPricesHandler,
  ) {}

  @Get('models')
  list(@Query() query: ModelListQuery) {
    return this.listModels.execute({ capability: query.capability, modality: query.modality });
  }

  @Get('models/:id')
  get(@Param('id') id: string) {
    return this.getModel.execute({ model_id: id });
  }

  @Get('capabilities')
  capabilities() {
    return this.listCapabilities.execute();
  }

  @Get('prices')
  prices() {
    return this.listPrices.execute();
  }
}
