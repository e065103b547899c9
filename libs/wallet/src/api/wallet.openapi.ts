import { type ControllerOpenApi, jsonAnswer as json, schemaRef as ref } from '@gensvc/http';
import type { WalletController } from './wallet.controller';

/** The OpenAPI declarations of the wallet, by handler (assembled into GET /v1/openapi.json by apps/api/src/openapi). */
export const WALLET_OPENAPI: ControllerOpenApi<WalletController> = {
  /** GET /v1/wallet */
  get: {
    operationId: 'wallet.get',
    summary: 'Read the wallet',
    tag: 'Wallet',
    responses: { 200: json('the wallet', ref('Wallet')) },
    errors: ['UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'INTERNAL'],
  },
};
