import { type ControllerOpenApi, jsonAnswer as json, schemaRef as ref } from '@gensvc/http';
import type { VoicesController } from './voices.controller';

/** The OpenAPI declarations of voices, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const VOICES_OPENAPI: ControllerOpenApi<VoicesController> = {
  /** GET /v1/voices */
  list: {
    operationId: 'voices.list',
    summary: 'List the caller\'s voices',
    tag: 'Voices',
    responses: { 200: json('a page of voices', ref('VoiceList')) },
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
  /** GET /v1/voices/:id */
  get: {
    operationId: 'voices.get',
    summary: 'Read a voice and its deletion state',
    tag: 'Voices',
    responses: { 200: json('the voice', ref('Voice')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'INTERNAL'],
  },
  /** DELETE /v1/voices/:id */
  delete: {
    operationId: 'voices.delete',
    summary: 'Delete a voice (queued)',
    tag: 'Voices',
    responses: { 202: json('the voice, deletion queued', ref('Voice')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'NOT_FOUND', 'VOICE_IN_USE', 'INTERNAL', 'SERVICE_UNAVAILABLE'],
  },
};
