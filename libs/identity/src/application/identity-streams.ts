import { createHash } from 'node:crypto';
import { streamName } from '@gensvc/kernel';
import { normalizeEmail } from '../domain/account';

/** The identity context's stream names, shared by its use cases. */
export const accountStream = (accountId: string) => streamName('account', accountId);
export const emailStream = (email: string) => streamName('accountemail', createHash('sha256').update(normalizeEmail(email)).digest('hex'));
export const apiKeyStream = (keyId: string) => streamName('apikey', keyId);
export const oauthClientStream = (clientId: string) => streamName('oauthclient', clientId);
export const oauthGrantStream = (grantId: string) => streamName('oauthgrant', grantId);
