import { type ControllerOpenApi, jsonAnswer as json, schemaRef as ref } from '@gensvc/http';
import type { CatalogueController } from './catalogue.controller';

/** The OpenAPI declarations of the catalogue, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const CATALOGUE_OPENAPI: ControllerOpenApi<CatalogueController> = {
  /** GET /v1/models */
  list: {
    operationId: 'catalogue.models.list',
    summary: 'List the models of the catalogue',
    tag: 'Catalogue',
    responses: { 200: json('the models (without input_schema)', ref('ModelList')) },
    errors: ['VALIDATION_ERROR', 'INTERNAL'],
  },
  /** GET /v1/models/:id */
  get: {
    operationId: 'catalogue.models.get',
    summary: 'Read one model with its input schema and prices',
    tag: 'Catalogue',
    responses: { 200: json('the model', ref('Model')) },
    errors: ['NOT_FOUND', 'INTERNAL'],
  },
  /** GET /v1/capabilities */
  capabilities: {
    operationId: 'catalogue.capabilities.list',
    summary: 'List the capabilities',
    tag: 'Catalogue',
    responses: { 200: json('the capabilities', ref('CapabilityList')) },
    errors: ['INTERNAL'],
  },
  /** GET /v1/prices */
  prices: {
    operationId: 'catalogue.prices.list',
    summary: 'List the prices',
    tag: 'Catalogue',
    responses: { 200: json('every price', ref('PriceList')) },
    errors: ['INTERNAL'],
  },
};
