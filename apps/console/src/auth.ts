/**
 * Sign-in: the service's own OAuth 2.0 authorization code flow with PKCE (S256), as the
 * first-party public client `client_gensvcconsole` whose one redirect URI is
 * `{origin}/console/callback`.
 *
 * Where the tokens live (docs/console.md explains the choice):
 * - the access token only in this page's memory;
 * - the refresh token in `sessionStorage` (this tab, until the browser session ends), so a
 *   reload or a typed address stays signed in. It rotates on every use (the server refuses
 *   a used one), and sign-out revokes it. No cookie carries an API credential.
 */

export const CLIENT_ID = 'client_gensvcconsole';
export const SCOPE = 'read create';
const REFRESH_KEY = 'gensvc.console.refresh_token';
const PENDING_KEY = 'gensvc.console.pending_sign_in';

export const consoleBase = (): string => `${location.origin}/console`;
export const redirectUri = (): string => `${consoleBase()}/callback`;

interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  scope?: string;
}

/** The sign-in could not complete; `message` is the server's description. */
export class AuthError extends Error {
  constructor(
    message: string,
    readonly code = 'sign_in_failed',
  ) {
    super(message);
  }
}

let access: { token: string; expiresAt: number } | null = null;
let refreshing: Promise<string | null> | null = null;
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('gensvc-console') : null;
const listeners = new Set<() => void>();

/** Called when this tab loses its sign-in (sign-out here or in another tab, or a refused refresh). */
export function onSignedOut(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

channel?.addEventListener('message', (e: MessageEvent) => {
  if (e.data === 'signed-out') {
    clearTokens();
    listeners.forEach((fn) => fn());
  }
});

function clearTokens(): void {
  access = null;
  sessionStorage.removeItem(REFRESH_KEY);
}

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const randomString = (n = 32): string => base64url(crypto.getRandomValues(new Uint8Array(n)));

async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** Leaves for `/authorize`; comes back at /console/callback, then to `returnTo`. */
export async function startSignIn(returnTo: string): Promise<void> {
  const verifier = randomString(48);
  const state = randomString(24);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, verifier, returnTo }));
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    scope: SCOPE,
    state,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
  });
  location.assign(`${location.origin}/authorize?${params}`);
}

async function tokenRequest(body: Record<string, string>): Promise<TokenResponse> {
  let res: Response;
  try {
    res = await fetch(`${location.origin}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({ ...body, client_id: CLIENT_ID }),
      cache: 'no-store',
    });
  } catch {
    throw new AuthError('The service cannot be reached. Check the connection and try again.', 'network');
  }
  const json = (await res.json().catch(() => ({}))) as Partial<TokenResponse> & { error?: string; error_description?: string };
  if (!res.ok || !json.access_token) throw new AuthError(json.error_description ?? `token request failed (${res.status})`, json.error ?? 'token_error');
  return json as TokenResponse;
}

function keep(t: TokenResponse): string {
  access = { token: t.access_token, expiresAt: Date.now() + t.expires_in * 1000 };
  if (t.refresh_token) sessionStorage.setItem(REFRESH_KEY, t.refresh_token);
  return t.access_token;
}

/** Finishes the redirect back from /authorize; resolves with the address to go to. */
export async function completeSignIn(search: string): Promise<string> {
  const params = new URLSearchParams(search);
  const pendingRaw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = pendingRaw ? (JSON.parse(pendingRaw) as { state: string; verifier: string; returnTo: string }) : null;
  if (params.get('error')) {
    const denied = params.get('error') === 'access_denied';
    throw new AuthError(denied ? 'You did not allow the console to use your account.' : (params.get('error_description') ?? params.get('error')!), params.get('error')!);
  }
  const code = params.get('code');
  if (!pending || !code || params.get('state') !== pending.state) throw new AuthError('This sign-in link is stale or did not start here. Sign in again.', 'state_mismatch');
  const iss = params.get('iss');
  if (iss && iss !== location.origin && !iss.startsWith(`${location.origin}/`)) throw new AuthError('The sign-in answer came from another issuer.', 'issuer_mismatch');
  keep(await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri(), code_verifier: pending.verifier }));
  return pending.returnTo && pending.returnTo.startsWith('/console') ? pending.returnTo : '/console/';
}

/** Trades the stored refresh token for a new pair (one request at a time); null when signed out. */
export function refreshTokens(): Promise<string | null> {
  refreshing ??= (async () => {
    const rt = sessionStorage.getItem(REFRESH_KEY);
    if (!rt) return null;
    try {
      return keep(await tokenRequest({ grant_type: 'refresh_token', refresh_token: rt }));
    } catch (err) {
      if ((err as AuthError).code === 'network') throw err;
      clearTokens();
      return null;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** A current access token (refreshed a minute before it expires), or null when not signed in. */
export async function accessToken(): Promise<string | null> {
  if (access && access.expiresAt - 60_000 > Date.now()) return access.token;
  return refreshTokens();
}

export const hasSession = (): boolean => access !== null || sessionStorage.getItem(REFRESH_KEY) !== null;

/** Revokes the refresh token (which ends the grant) and forgets every token in every tab. */
export async function signOut(): Promise<void> {
  const rt = sessionStorage.getItem(REFRESH_KEY);
  const at = access?.token;
  clearTokens();
  channel?.postMessage('signed-out');
  const revoke = (token: string, hint: string) =>
    fetch(`${location.origin}/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, token_type_hint: hint, client_id: CLIENT_ID }),
    }).catch(() => undefined);
  await Promise.all([rt ? revoke(rt, 'refresh_token') : undefined, at ? revoke(at, 'access_token') : undefined]);
}
