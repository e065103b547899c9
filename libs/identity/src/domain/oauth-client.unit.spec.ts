import { DeciderSpecification } from '@gensvc/kernel/testing/decider-specification';
import { oauthClientDecider } from './oauth-client';

const now = new Date('2026-01-01T00:00:00.000Z');
const spec = DeciderSpecification.for(oauthClientDecider);
const register = (redirectUri: string, isPublic = false) => ({ type: 'RegisterOAuthClient' as const, data: { client_id: 'client_1', name: 'App', redirect_uri: redirectUri, public: isPublic, secret_hash: isPublic ? null : 'h' }, metadata: { now } });

describe('OAuth client decider', () => {
  it('registers https and loopback http redirect URIs', () => {
    for (const uri of ['https://app.example/cb', 'http://127.0.0.1:8080/cb', 'http://localhost/cb', 'https://app.example/cb?x=1']) {
      spec.given([]).when(register(uri)).thenReturns((events) => expect(events[0].data.redirect_uris).toEqual([uri]));
    }
  });

  it('refuses plain http on public hosts, fragments, credentials and relative URIs', () => {
    for (const uri of ['http://app.example/cb', 'https://app.example/cb#x', 'https://u:p@app.example/cb', '/cb', 'javascript:alert(1)']) {
      spec.given([]).when(register(uri)).thenThrows('VALIDATION_ERROR');
    }
  });

  it('refuses a client name with control or bidirectional formatting characters (it shows on the consent page)', () => {
    for (const name of ['App\u202Eevil', 'App\u001b]8;;x', 'A\u0000pp', 'App\u009b']) {
      spec.given([]).when({ ...register('https://app.example/cb'), data: { ...register('https://app.example/cb').data, name } }).thenThrows('VALIDATION_ERROR');
    }
  });

  it('stores no secret for public clients and refuses a second registration', () => {
    spec.given([]).when(register('https://a.example/cb', true)).thenReturns((events) => expect(events[0].data).toMatchObject({ public: true, secret_hash: null }));
    spec
      .given([{ type: 'OAuthClientRegistered', data: { client_id: 'client_1', name: 'App', redirect_uris: ['https://a.example/cb'], public: true, secret_hash: null, registered_at: now.toISOString() } }])
      .when(register('https://a.example/cb'))
      .thenThrows('CONFLICT');
  });
});
