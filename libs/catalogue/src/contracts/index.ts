/**
 * The catalogue context's contracts: what other libraries may import (Nest-free). The
 * catalogue is a read-only model loaded at boot; `Catalogue` is both its port token and its
 * one implementation.
 */
export { Catalogue, ROUTED, type CatalogueModel, type CatalogueRoute, type Modality, type PriceQuote, type InputValidation } from '../domain/catalogue';
