import type { Request } from 'express';
import { clientAuthenticates, type FindOAuthClientHandler, type OAuthClient } from '../application/find-oauth-client/find-oauth-client.handler';
import { TokenEndpointError } from './token-endpoint-error';

/**
 * The client of a token or revocation request (RFC 6749 §2.3): client_secret_basic,
 * client_secret_post, or none (public clients, with client_id in the body). Throws a
 * `TokenEndpointError` (`invalid_client`, or `invalid_request` for a malformed one).
 */
export async function authenticateClient(req: Request, findClient: FindOAuthClientHandler): Promise<OAuthClient> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const header = req.headers.authorization;
  let clientId: unknown = body.client_id;
  let secret: string | undefined;
  let basic = false;
  if (typeof header === 'string' && /^basic /i.test(header)) {
    basic = true;
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) throw invalidClient(true);
    const formDecode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    const id = formDecode(decoded.slice(0, i));
    if (body.client_secret !== undefined) throw new TokenEndpointError('invalid_request', 'use one client authentication method, not two');
    if (clientId !== undefined && clientId !== id) throw new TokenEndpointError('invalid_request', 'client_id does not match the Authorization header');
    clientId = id;
    secret = formDecode(decoded.slice(i + 1));
  } else if (header !== undefined) {
    throw invalidClient(false);
  } else if (body.client_secret !== undefined) {
    if (typeof body.client_secret !== 'string') throw new TokenEndpointError('invalid_request', 'client_secret must be a string');
    secret = body.client_secret;
  }
  if (typeof clientId !== 'string' || !clientId) throw invalidClient(basic);
  const client = await findClient.execute({ client_id: clientId });
  if (!client || !clientAuthenticates(client, secret)) throw invalidClient(basic);
  return client;
}

function invalidClient(basic: boolean): TokenEndpointError {
  return new TokenEndpointError('invalid_client', 'client authentication failed', 401, basic ? { 'WWW-Authenticate': 'Basic realm="gensvc"' } : {});
}
