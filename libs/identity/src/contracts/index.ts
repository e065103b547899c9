/** The identity context's contracts: what other libraries may import (Nest-free). */
export * from './upload-tokens';
export type { AccountEvent } from '../domain/account';
export type { ApiKeyEvent } from '../domain/api-key';
export type { OAuthClientEvent } from '../domain/oauth-client';
export type { OAuthGrantEvent } from '../domain/oauth-grant';
