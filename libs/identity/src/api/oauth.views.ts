/** Server-rendered pages of the authorization endpoint (no front-end build). */

const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const SCOPE_TEXT: Record<string, string> = {
  read: 'read your account, models, quotes, tasks, bills, uploads, assets and voices',
  create: 'create paid tasks (spending money from your wallet) and manage your uploads, assets and voices',
};

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · gensvc</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem}label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}
button{margin:1rem .5rem 0 0;padding:.5rem 1rem}.error{color:#a00}ul{padding-left:1.2rem}</style></head>
<body>${body}</body></html>`;
}

export function loginPage(v: { clientName: string; transactionId: string; csrf: string; error?: string; email?: string }): string {
  return page(
    'Sign in',
    `<h1>Sign in to allow <strong>${esc(v.clientName)}</strong></h1>
${v.error ? `<p class="error" role="alert">${esc(v.error)}</p>` : ''}
<form method="post" action="">
<input type="hidden" name="action" value="login">
<input type="hidden" name="transaction_id" value="${esc(v.transactionId)}">
<input type="hidden" name="csrf_token" value="${esc(v.csrf)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(v.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function consentPage(v: { clientName: string; accountName: string; scopes: readonly string[]; transactionId: string; csrf: string }): string {
  return page(
    'Allow access',
    `<h1><strong>${esc(v.clientName)}</strong> asks for access to your account</h1>
<p>Signed in as ${esc(v.accountName)}. If you allow it, ${esc(v.clientName)} may:</p>
<ul>${v.scopes.map((s) => `<li><strong>${esc(s)}</strong>: ${esc(SCOPE_TEXT[s] ?? s)}</li>`).join('')}</ul>
<form method="post" action="">
<input type="hidden" name="transaction_id" value="${esc(v.transactionId)}">
<input type="hidden" name="csrf_token" value="${esc(v.csrf)}">
<button type="submit" name="action" value="allow">Allow</button>
<button type="submit" name="action" value="deny">Deny</button>
</form>`,
  );
}

export function errorPage(message: string): string {
  return page('Authorization error', `<h1>This authorization request cannot go on</h1><p class="error">${esc(message)}</p><p>Nothing was shared. Go back to the application and start again.</p>`);
}
