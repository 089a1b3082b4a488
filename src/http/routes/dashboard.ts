import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { htmlResponse } from '../plugins/openapi.ts';
import { originAllowed } from '../origin-policy.ts';

/** The Vite build of `web/` (see `npm run build:web`); its file names under assets/ carry content hashes. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

export interface DashboardOptions {
  /** Another build folder (tests); `web/dist` by default. */
  root?: string;
}

/** What the app may know about the service before signing in; never anything secret. */
export interface DashboardConfig {
  /** "outbox": no SMTP server, sign-in links are written to a folder and the log. */
  mail: 'smtp' | 'outbox';
  /** Where the outbox is, relative to the service's working directory when it lies inside it. */
  outbox: string | null;
  maxTextChars: number;
}

// Paths the app never owns: an unknown one must stay a JSON 404, not the app's HTML.
const API_PREFIXES = ['/api/', '/v1/'];
const API_ROOTS = new Set(['/api', '/v1']);
// A client route is a path without a file extension in its last segment.
const FILE_LIKE = /\/[^/]*\.[A-Za-z0-9]+$/;

export function dashboardConfig(config: Readonly<Config>, cwd = process.cwd()): DashboardConfig {
  const outboxPath = resolve(config.dataDir, 'outbox');
  const rel = relative(cwd, outboxPath);
  const shown = rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) ? rel.split(sep).join('/') : outboxPath;
  return { mail: config.smtpUrl ? 'smtp' : 'outbox', outbox: config.smtpUrl ? null : `${shown}/`, maxTextChars: config.maxTextChars };
}

/**
 * Self only. Audio the app makes (speech results, recordings) plays from blob: URLs; the WebSocket stream is
 * same-origin, listed explicitly for browsers whose 'self' does not cover ws:.
 */
export function contentSecurityPolicy(publicUrl: URL, host?: string): string {
  const ws = `${publicUrl.protocol === 'https:' ? 'wss' : 'ws'}://${host ?? publicUrl.host}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "media-src 'self' blob: data:",
    `connect-src 'self' ${ws}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The built index.html with the service's public settings in a meta tag (no inline script: the CSP forbids it). */
function renderIndex(html: string, settings: DashboardConfig): string {
  const meta = `<meta name="voxsmith-config" content="${escapeAttribute(JSON.stringify(settings))}">`;
  return html.includes('</head>') ? html.replace('</head>', `${meta}\n</head>`) : meta + html;
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Voxsmith</title>
<p>The dashboard has not been built. Run <code>npm run build:web</code> (or <code>npm ci</code>) and reload.</p>
<p>The API works regardless: see the README.</p></html>`;

/**
 * Serves the dashboard at `/`: hashed assets with a year of cache, index.html never cached, and index.html
 * for every other GET that is not an API path and does not look like a file, so client routes survive a reload.
 */
export async function dashboardRoutes(app: FastifyInstance, options: DashboardOptions = {}): Promise<void> {
  const root = resolve(options.root ?? DASHBOARD_DIST);
  const assets = resolve(root, 'assets');
  const settings = dashboardConfig(app.config);
  const csp = contentSecurityPolicy(app.config.publicUrl);
  // Without PUBLIC_URL the app is also served on the host's own addresses (origin-policy.ts): its stream there.
  const cspFor = (request: FastifyRequest): string => {
    const { host } = request;
    if (app.config.publicUrlSet || !originAllowed(app.config, `http://${host}`, host)) return csp;
    return contentSecurityPolicy(app.config.publicUrl, host);
  };

  if (existsSync(assets)) {
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      list: false,
      dotfiles: 'deny',
      immutable: true,
      maxAge: '365d',
    });
  } else {
    app.log.info({ root }, 'dashboard not built (npm run build:web); serving the API only');
  }

  const sendIndex = (request: FastifyRequest, reply: FastifyReply) => {
    const index = resolve(root, 'index.html');
    reply.header('Cache-Control', 'no-cache').header('X-Content-Type-Options', 'nosniff');
    if (!existsSync(index)) return reply.status(503).type('text/html; charset=utf-8').send(NOT_BUILT);
    return reply
      .header('Content-Security-Policy', cspFor(request))
      .header('Referrer-Policy', 'same-origin')
      .header('X-Frame-Options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(renderIndex(readFileSync(index, 'utf8'), settings));
  };

  const schema = {
    summary: 'The dashboard',
    description: 'The web app (sign in, keys, voices, playground). Its client routes are served the same page.',
    response: { 200: htmlResponse('HTML page') },
  };
  app.get('/', { schema }, async (request, reply) => sendIndex(request, reply));

  app.get('/*', async (request, reply) => {
    const path = request.url.split('?')[0];
    if (API_ROOTS.has(path) || API_PREFIXES.some((p) => path.startsWith(p)) || path.startsWith('/assets/')) {
      return reply.callNotFound();
    }
    if (FILE_LIKE.test(path)) {
      // Top-level public files of the build (favicon and the like); nothing nested, nothing outside root.
      const name = path.slice(1);
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name === 'index.html') return reply.callNotFound();
      const file = resolve(root, name);
      if (!existsSync(file) || !statSync(file).isFile()) return reply.callNotFound();
      const type = name.endsWith('.svg')
        ? 'image/svg+xml'
        : name.endsWith('.txt')
          ? 'text/plain; charset=utf-8'
          : 'application/octet-stream';
      return reply
        .header('Cache-Control', 'public, max-age=3600')
        .header('X-Content-Type-Options', 'nosniff')
        .type(type)
        .send(readFileSync(file));
    }
    return sendIndex(request, reply);
  });
}
