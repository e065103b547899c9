import { type ControllerOpenApi, jsonAnswer as json } from '@gensvc/http';
import type { OpenApiController } from './openapi.controller';

/** The OpenAPI declarations of the document itself, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const OPENAPI_JSON_OPENAPI: ControllerOpenApi<OpenApiController> = {
  /** GET /v1/openapi.json */
  get: {
    operationId: 'openapi.get',
    summary: 'This document',
    tag: 'Meta',
    responses: { 200: json('the OpenAPI 3.1 document', { type: 'object' }) },
    errors: ['INTERNAL'],
  },
};
