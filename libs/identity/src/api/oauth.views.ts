/**
 * Server-rendered pages of the authorization endpoint (no front-end build): the same look as
 * the web console (colours, type, cards), the requesting application's name, the scopes in
 * plain words, where the browser goes next, and one clear primary button.
 */

const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Each scope in plain words: what the application may then do. */
export const SCOPE_TEXT: Record<string, { title: string; detail: string }> = {
  read: {
    title: 'See your account',
    detail: 'Your wallet balance, bills, tasks and their results, uploads, files and voices, and price quotes.',
  },
  create: {
    title: 'Spend money and change your files',
    detail: 'Start paid tasks that take money from your wallet, cancel tasks, and upload, import or delete files and voices.',
  },
};

const LOGO = `<svg class="logo" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8" fill="#4f46e5"/><path d="M9 17.5a7 7 0 0 1 12.6-4.2M23 14.5a7 7 0 0 1-12.6 4.2" stroke="#fff" stroke-width="2.6" fill="none" stroke-linecap="round"/><circle cx="21.8" cy="13.2" r="1.9" fill="#a5b4fc"/><circle cx="10.2" cy="18.8" r="1.9" fill="#a5b4fc"/></svg>`;

const STYLE = `
:root{color-scheme:light;--bg:#f5f6fb;--card:#fff;--ink:#111827;--muted:#5b6474;--line:#e3e6ee;--brand:#4f46e5;--brand-ink:#fff;--brand-dark:#3730a3;--danger:#b42318;--danger-bg:#fef3f2;--focus:#1d4ed8}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;display:flex;flex-direction:column;align-items:center;padding:2.5rem 1rem}
.brand{display:flex;align-items:center;gap:.6rem;font-weight:700;font-size:1.15rem;margin-bottom:1.5rem;letter-spacing:-.01em}
main{width:100%;max-width:27rem;background:var(--card);border:1px solid var(--line);border-radius:14px;box-shadow:0 1px 2px rgba(16,24,40,.04),0 8px 24px rgba(16,24,40,.06);padding:1.75rem}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 .4rem;letter-spacing:-.01em}
p{margin:.4rem 0}
.muted{color:var(--muted);font-size:.94rem}
label{display:block;font-weight:600;font-size:.92rem;margin:1rem 0 .3rem}
input[type=email],input[type=password]{width:100%;padding:.65rem .75rem;font:inherit;border:1px solid #c9ceda;border-radius:8px;background:#fff;color:var(--ink)}
input:focus-visible,button:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.actions{display:flex;flex-direction:column;gap:.6rem;margin-top:1.5rem}
button{font:inherit;font-weight:600;border-radius:8px;padding:.7rem 1rem;cursor:pointer;border:1px solid transparent;width:100%}
.primary{background:var(--brand);color:var(--brand-ink)}
.primary:hover{background:var(--brand-dark)}
.secondary{background:#fff;color:var(--ink);border-color:#c9ceda}
.secondary:hover{background:#f3f4f8}
.link{background:none;border:none;color:var(--brand-dark);padding:0;width:auto;font-weight:600;text-decoration:underline;font-size:.92rem}
.error{background:var(--danger-bg);color:var(--danger);border:1px solid #fecdca;border-radius:8px;padding:.6rem .8rem;margin:1rem 0 0}
.account{display:flex;justify-content:space-between;align-items:center;gap:.5rem;background:#f7f8fc;border:1px solid var(--line);border-radius:10px;padding:.6rem .8rem;margin:1rem 0;font-size:.94rem}
.account form{margin:0}
ul.scopes{list-style:none;margin:1rem 0;padding:0;display:flex;flex-direction:column;gap:.7rem}
ul.scopes li{display:flex;gap:.7rem;align-items:flex-start}
ul.scopes .dot{flex:none;width:1.6rem;height:1.6rem;border-radius:50%;background:#eef0ff;color:var(--brand-dark);display:flex;align-items:center;justify-content:center;font-weight:700;font-size:.85rem;margin-top:.1rem}
ul.scopes strong{display:block}
.target{font-size:.9rem;color:var(--muted);border-top:1px solid var(--line);padding-top:.9rem;margin-top:1rem;word-break:break-all}
.target code{color:var(--ink);font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88rem}
footer{margin-top:1.25rem;color:var(--muted);font-size:.85rem;text-align:center;max-width:27rem}
@media (max-width:480px){body{padding:1.25rem .75rem}main{padding:1.25rem}}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)} · gensvc</title>
<style>${STYLE}</style></head>
<body><div class="brand">${LOGO}<span>gensvc</span></div>
<main>${body}</main>
<footer>Only ever type your password on a page whose address is this service's own.</footer>
</body></html>`;
}

/** Where the browser goes after the decision, without query or fragment (for the user to read). */
function targetOf(redirectUri: string | undefined): string {
  if (!redirectUri) return '';
  try {
    const u = new URL(redirectUri);
    return `${u.origin}${u.pathname}`;
  } catch {
    return redirectUri;
  }
}

const hidden = (v: { transactionId: string; csrf: string }) =>
  `<input type="hidden" name="transaction_id" value="${esc(v.transactionId)}"><input type="hidden" name="csrf_token" value="${esc(v.csrf)}">`;

export function loginPage(v: { clientName: string; transactionId: string; csrf: string; error?: string; email?: string; redirectUri?: string }): string {
  const target = targetOf(v.redirectUri);
  return page(
    'Sign in',
    `<h1>Sign in to continue</h1>
<p class="muted"><strong>${esc(v.clientName)}</strong> asks you to sign in with your gensvc account.</p>
${v.error ? `<p class="error" role="alert">${esc(v.error)}</p>` : ''}
<form method="post" action="">
<input type="hidden" name="action" value="login">
${hidden(v)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(v.email ?? '')}"${v.email ? '' : ' autofocus'}>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required${v.email ? ' autofocus' : ''}>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>
${target ? `<p class="target">Next, you will be asked to allow access for <code>${esc(target)}</code></p>` : ''}`,
  );
}

export function consentPage(v: {
  clientName: string;
  accountName: string;
  scopes: readonly string[];
  transactionId: string;
  csrf: string;
  redirectUri?: string;
}): string {
  const target = targetOf(v.redirectUri);
  const scopes = v.scopes
    .map((s, i) => {
      const text = SCOPE_TEXT[s] ?? { title: s, detail: '' };
      return `<li><span class="dot" aria-hidden="true">${i + 1}</span><span><strong>${esc(text.title)}</strong><span class="muted">${esc(text.detail)}</span></span></li>`;
    })
    .join('');
  return page(
    'Allow access',
    `<h1>Allow <strong>${esc(v.clientName)}</strong> to use your account?</h1>
<div class="account"><span>Signed in as <strong>${esc(v.accountName)}</strong></span>
<form method="post" action="">${hidden(v)}<button class="link" type="submit" name="action" value="switch">Use another account</button></form></div>
<p>If you allow it, ${esc(v.clientName)} can:</p>
<ul class="scopes">${scopes}</ul>
<form method="post" action="">
${hidden(v)}
<div class="actions">
<button class="primary" type="submit" name="action" value="allow">Allow access</button>
<button class="secondary" type="submit" name="action" value="deny">Deny</button>
</div>
</form>
${target ? `<p class="target">After your choice you will be sent to <code>${esc(target)}</code></p>` : ''}`,
  );
}

export function errorPage(message: string): string {
  return page(
    'Authorization error',
    `<h1>This sign-in cannot go on</h1><p class="error" role="alert">${esc(message)}</p><p class="muted">Nothing was shared. Go back to the application and start again.</p>`,
  );
}
