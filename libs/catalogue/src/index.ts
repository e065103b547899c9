export { CatalogueModule } from './catalogue.module';
export { Catalogue, type CatalogueModel, type Modality, type PriceQuote, type InputValidation } from './domain/catalogue';
