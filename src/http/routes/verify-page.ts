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
<title>Sign in to Voxsmith</title>
<style nonce="${nonce}">
body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1b1b1f}
button{font:inherit;padding:.6rem 1.4rem;border-radius:.4rem;border:0;background:#3a48c9;color:#fff;cursor:pointer}
button:focus-visible{outline:3px solid #f3a712;outline-offset:2px}
#status{min-height:1.5rem}
</style>
</head>
<body>
<main>
<h1>Sign in to Voxsmith</h1>
<p>Press the button to finish signing in on this device.</p>
<button id="go" type="button">Sign in</button>
<p id="status" role="status" aria-live="polite"></p>
</main>
<script nonce="${nonce}">
const token = new URLSearchParams(location.search).get('token') || '';
const status = document.getElementById('status');
const button = document.getElementById('go');
history.replaceState(null, '', location.pathname);
if (!token) { status.textContent = 'This link has no sign-in token.'; button.disabled = true; }
button.addEventListener('click', async () => {
  button.disabled = true;
  status.textContent = 'Signing in…';
  try {
    const res = await fetch('/api/auth/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }), credentials: 'same-origin' });
    const body = await res.json();
    if (!res.ok) { status.textContent = body.error || 'Sign-in failed.'; return; }
    status.textContent = 'Signed in as ' + body.user.email + '.';
    location.assign('/');
  } catch (e) {
    status.textContent = 'Network error, try again.';
    button.disabled = false;
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
      .header('Content-Security-Policy', `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`)
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(page(nonce));
  });
}
