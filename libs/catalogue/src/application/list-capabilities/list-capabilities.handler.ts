import { Injectable } from '@nestjs/common';
import { Catalogue } from '../../domain/catalogue';
import { onePage, type CataloguePage } from '../catalogue.views';

/** GET /v1/capabilities: every capability some model of the catalogue has. */
@Injectable()
export class ListCapabilitiesHandler {
  constructor(private readonly catalogue: Catalogue) {}

  execute(): CataloguePage<string> {
    return onePage(this.catalogue.capabilities());
  }
}
