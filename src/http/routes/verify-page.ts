import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { htmlResponse } from '../plugins/openapi.ts';

/**
 * GET /verify only shows a button: mail scanners open links, so a GET must never consume the token.
 * The page reads the token from its own address and POSTs it to /api/auth/verify.
 */
function page(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>Sign in · Voxsmith</title>
<style nonce="${nonce}">
:root{--bg:#f6f6f9;--surface:#fff;--text:#1b1b1f;--muted:#55566a;--line:#d9d9e3;--accent:#3a48c9;--accent-text:#fff;--danger:#b3261e;--focus:#f3a712;--radius:.6rem;
color-scheme:light dark;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;line-height:1.5;color:var(--text);background:var(--bg)}
@media (prefers-color-scheme:dark){:root{--bg:#15151b;--surface:#1f1f27;--text:#ececf3;--muted:#a9aabd;--line:#3a3a48;--accent:#8d97ff;--accent-text:#10101a;--danger:#ff8a80}}
*{box-sizing:border-box}body{margin:0}
header{display:flex;align-items:center;padding:.6rem 1.25rem;background:var(--surface);border-bottom:1px solid var(--line)}
.brand{display:inline-flex;align-items:center;gap:.5rem;font-weight:700;font-size:1.15rem;color:var(--text);text-decoration:none}
main{max-width:30rem;margin:0 auto;padding:2rem 1.25rem 3rem}
h1{font-size:1.8rem;line-height:1.2;margin:.5rem 0 .75rem}
.card{background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);padding:1.25rem;display:flex;flex-direction:column;gap:.75rem}
.card p{margin:0}
label{font-weight:600}
input{font:inherit;padding:.55rem .7rem;border:1px solid var(--line);border-radius:var(--radius);background:var(--surface);color:var(--text);width:100%}
button{font:inherit;font-weight:600;padding:.6rem 1.4rem;min-height:2.75rem;border-radius:var(--radius);border:0;background:var(--accent);color:var(--accent-text);cursor:pointer;align-self:flex-start}
button:disabled{opacity:.6;cursor:default}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
#status{min-height:1.5rem}
.error{color:var(--danger);font-weight:600}
a{color:var(--accent)}
[hidden]{display:none!important}
</style>
</head>
<body>
<header><a class="brand" href="/"><img src="/favicon.svg" alt="" width="28" height="28"><span>Voxsmith</span></a></header>
<main>
<h1>Sign in to Voxsmith</h1>
<section class="card" id="confirm" aria-labelledby="confirm-text">
<p id="confirm-text">Press the button to finish signing in on this device.</p>
<button id="go" type="button">Sign in</button>
</section>
<p id="status" role="status" aria-live="polite"></p>
<form class="card" id="again" hidden>
<p id="again-text">Ask for a new sign-in link: it arrives by mail and works once.</p>
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" inputmode="email" required maxlength="254">
<button type="submit" id="send">Send me a new link</button>
</form>
<p><a href="/">Back to Voxsmith</a></p>
</main>
<script nonce="${nonce}">
const token = new URLSearchParams(location.search).get('token') || '';
const status = document.getElementById('status');
const button = document.getElementById('go');
const confirmCard = document.getElementById('confirm');
const again = document.getElementById('again');
const email = document.getElementById('email');
const send = document.getElementById('send');
history.replaceState(null, '', location.pathname);
// A link that cannot sign in anyone offers a new one instead of a button that can only fail.
function offerNewLink(reason) {
  confirmCard.hidden = true;
  status.textContent = reason;
  status.className = 'error';
  again.hidden = false;
}
if (!token) offerNewLink('This link has no sign-in token.');
button.addEventListener('click', async () => {
  button.disabled = true;
  status.className = '';
  status.textContent = 'Signing in…';
  try {
    const res = await fetch('/api/auth/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }), credentials: 'same-origin' });
    const body = await res.json();
    if (!res.ok) {
      if (body.code === 'invalid_token' || body.code === 'link_expired') offerNewLink(body.error);
      else { status.className = 'error'; status.textContent = body.error || 'Sign-in failed.'; button.disabled = false; }
      return;
    }
    status.textContent = 'Signed in as ' + body.user.email + '.';
    location.assign('/');
  } catch (e) {
    status.className = 'error';
    status.textContent = 'Network error, try again.';
    button.disabled = false;
  }
});
again.addEventListener('submit', async (event) => {
  event.preventDefault();
  send.disabled = true;
  try {
    const res = await fetch('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: email.value }), credentials: 'same-origin' });
    const body = await res.json();
    status.className = res.ok ? '' : 'error';
    status.textContent = res.ok ? body.message : (body.error || 'Could not send a link.');
    if (res.ok) again.hidden = true;
  } catch (e) {
    status.className = 'error';
    status.textContent = 'Network error, try again.';
  } finally {
    send.disabled = false;
  }
});
</script>
</body>
</html>`;
}

export async function verifyPageRoute(app: FastifyInstance): Promise<void> {
  const schema = {
    summary: 'Sign-in page of the e-mailed link',
    description: 'An HTML page with a button that posts the token to /api/auth/verify; opening it consumes nothing.',
    response: { 200: htmlResponse('HTML page') },
  };
  app.get('/verify', { schema }, async (_request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    return reply
      .header(
        'Content-Security-Policy',
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      )
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(page(nonce));
  });
}
