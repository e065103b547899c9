import { eventSchemas } from '@gensvc/kernel';

/**
 * Schema version 1 of the identity events wrote their data in camelCase (`accountId`,
 * `secretHash`, `redirectUris`, ...); version 2, the current one, is snake_case like every
 * other context's events. Stored version-1 events are lifted on read (DESIGN rule 5), so
 * deciders, projections and replays only ever see the current shape. The field sets are
 * unchanged: only the names differ, so one key-renaming upcaster serves every type.
 */
export const IDENTITY_EVENT_TYPES = [
  'AccountOpened',
  'AccountClosed',
  'AccountEmailClaimed',
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'OAuthClientRegistered',
  'OAuthCodeIssued',
  'OAuthTokensIssued',
  'OAuthAccessTokenRevoked',
  'OAuthGrantRevoked',
] as const;

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** v1 → v2: the data's top-level keys from camelCase to snake_case; values untouched. */
export function upcastIdentityV1(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [snake(k), v]));
}

for (const type of IDENTITY_EVENT_TYPES) eventSchemas.upcast(type, 1, upcastIdentityV1);
