import { type ControllerOpenApi, jsonAnswer as json, schemaRef as ref } from '@gensvc/http';
import type { QuotesController } from './quotes.controller';

/** The OpenAPI declarations of quotes, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const QUOTES_OPENAPI: ControllerOpenApi<QuotesController> = {
  /** POST /v1/quotes */
  create: {
    operationId: 'quotes.create',
    summary: 'Quote a task (reserves nothing)',
    tag: 'Quotes',
    description:
      'input and options are merged and validated against the model\'s input_schema; undeclared parameters, a name in both input and options, and ' +
      'asset_ids/voice_id/consent_attested outside input are refused. asset_ids must be the caller\'s completed assets, voice_id the caller\'s usable voice.',
    body: {
      name: 'QuoteRequest',
      refine: {
        model: { description: 'catalogue model id' },
        capability: { description: 'must be a capability of the model' },
        input: { type: 'object', description: 'creative input and stable asset references (asset_ids, voice_id, consent_attested go here)' },
        options: { type: 'object', default: {}, description: 'model specification and other options; merged with input for validation' },
        currency: { enum: ['CNY'], default: 'CNY' },
      },
    },
    responses: { 200: json('the quote', ref('Quote')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'PAYLOAD_TOO_LARGE', 'PRICE_UNAVAILABLE', 'MODEL_UNAVAILABLE', 'ASSET_TYPE_UNSUPPORTED', 'INTERNAL'],
  },
};
