/**
 * The catalogue context's contracts: what other libraries may import (Nest-free). `Catalogue`
 * is both the port token and its one implementation: the published version in service,
 * swapped in place when the operator publishes another (`current()`, `onChange`).
 */
export {
  Catalogue,
  CatalogueVersion,
  ROUTED,
  type CatalogueListener,
  type CatalogueModel,
  type CatalogueRoute,
  type Modality,
  type PriceQuote,
  type InputValidation,
} from '../domain/catalogue';
export { CatalogueFileError, MEDIA_TYPES_KEYWORD, type CatalogueFile, type CatalogueFileModel } from '../domain/catalogue-file';
export type { CatalogueChange } from '../domain/catalogue-changes';
export { CATALOGUE_STREAM, CATALOGUE_VERSION_EVENT_TYPES, type CataloguePublishedData, type CatalogueVersionEvent } from '../domain/catalogue-versions';
