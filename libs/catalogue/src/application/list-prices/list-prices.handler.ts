import { Injectable } from '@nestjs/common';
import { Catalogue } from '../../domain/catalogue';
import { onePage, priceViews, type CataloguePage, type PriceView } from '../catalogue.views';

/** GET /v1/prices: every price of every model of the version in service, each with its model's price version. */
@Injectable()
export class ListPricesHandler {
  constructor(private readonly catalogue: Catalogue) {}

  execute(): CataloguePage<PriceView> {
    return onePage(this.catalogue.models().flatMap((m) => priceViews(this.catalogue, m)));
  }
}
