import { readFileSync } from 'node:fs';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

const read = (name: string): Buffer => readFileSync(new URL(`./docs-theme/${name}`, import.meta.url));
const favicon = readFileSync(new URL('../../../web/public/favicon.svg', import.meta.url));

/**
 * A function (or an expression naming one) for Swagger UI's config, written as browser JavaScript.
 * @fastify/swagger-ui writes config functions into the page with toString(); giving the source explicitly keeps
 * what the browser runs independent of how this file is compiled.
 */
function browserFunction<F extends (...args: never[]) => unknown>(source: string): F {
  const fn = (() => {
    throw new Error('runs in the browser only');
  }) as unknown as F;
  fn.toString = () => source;
  return fn;
}

type SwaggerPlugin = NonNullable<NonNullable<FastifySwaggerUiOptions['uiConfig']>['plugins']>[number];

/**
 * Audio answers ("Try it out" on /v1/speak, /v1/audio/speech): Swagger UI's own player loads the request's URL
 * again with GET (a 404 for a POST endpoint). This plugin wraps the response body view: an audio answer is
 * already here as a Blob, so it plays from a blob: URL of it, with a download link beside (raw PCM, which no
 * browser plays, only the link).
 */
const AUDIO_PLUGIN = `function VoxsmithAudioAnswers() {
  var urls = new WeakMap();
  var extensions = { 'audio/mpeg': 'mp3', 'audio/wav': 'wav', 'audio/ogg': 'ogg', 'audio/flac': 'flac', 'audio/pcm': 'pcm' };
  return {
    wrapComponents: {
      responseBody: function (Original, system) {
        return function (props) {
          var h = system.React.createElement;
          var type = String(props.contentType || '').split(';')[0].trim().toLowerCase();
          var content = props.content;
          if (type.indexOf('audio/') !== 0 || typeof Blob === 'undefined' || !(content instanceof Blob)) return h(Original, props);
          var url = urls.get(content);
          if (!url) { url = URL.createObjectURL(content); urls.set(content, url); }
          var name = 'speech.' + (extensions[type] || 'bin');
          return h('div', { className: 'voxsmith-audio' },
            h('h5', null, 'Response body'),
            type === 'audio/pcm'
              ? h('p', null, 'Raw 16-bit PCM, mono, 24 kHz: browsers cannot play it; download it instead.')
              : h('audio', { controls: true, src: url, 'aria-label': 'The spoken answer', 'data-testid': 'docs-audio' }),
            h('p', null, h('a', { href: url, download: name }, 'Download ' + name + ' (' + Math.round(content.size / 1024) + ' KiB)')));
        };
      },
    },
  };
}`;

/**
 * Accessible names Swagger UI leaves out (axe: icon-only copy and dark-mode buttons, the logo image, the top bar's
 * URL field, the server list, request-body text areas, sideways-scrolling code blocks). Its components render these inline, with no hook to wrap,
 * so the plugin names them as they appear.
 */
const A11Y_PLUGIN = `function VoxsmithAccessibleNames() {
  function name(el, label) { if (!el.hasAttribute('aria-label')) el.setAttribute('aria-label', label); }
  function fix(root) {
    root.querySelectorAll('.copy-to-clipboard button').forEach(function (b) { name(b, 'Copy to clipboard'); });
    root.querySelectorAll('.dark-mode-toggle button').forEach(function (b) { name(b, 'Dark mode on or off'); });
    root.querySelectorAll('.topbar-wrapper img:not([alt])').forEach(function (i) { i.setAttribute('alt', 'Voxsmith'); });
    root.querySelectorAll('#download-url-input').forEach(function (i) { name(i, 'URL of the API description'); });
    // Code blocks scroll sideways on a phone: a keyboard user must be able to reach them.
    root.querySelectorAll('pre.microlight, pre.curl').forEach(function (p) { if (!p.hasAttribute('tabindex')) p.setAttribute('tabindex', '0'); });
    root.querySelectorAll('select#servers').forEach(function (s) { name(s, 'Server'); });
    root.querySelectorAll('textarea').forEach(function (t) {
      var row = t.closest('tr');
      var param = row && row.querySelector('.parameter__name');
      name(t, t.closest('.body-param') ? 'Request body' : param ? param.textContent.replace(/\\*/g, '').trim() : 'Value');
    });
  }
  return {
    afterLoad: function () {
      fix(document);
      new MutationObserver(function () { fix(document); }).observe(document.body, { childList: true, subtree: true });
    },
  };
}`;

/**
 * The page's policy: scripts and styles from the page's own files only, audio from blob: URLs (the played
 * answers). Swagger UI's bundle adds one fixed <style> element, allowed by its hash (a new Swagger UI that
 * changes it shows up as a console error in test/browser/docs.test.ts).
 */
const CSP = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'img-src': ["'self'", 'data:'],
  'media-src': ["'self'", 'blob:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"],
};

/** Swagger UI at /docs as Voxsmith's: our name, logo and colours, audio answers that play, a strict CSP. */
export function docsUiOptions(): FastifySwaggerUiOptions {
  return {
    routePrefix: '/docs',
    staticCSP: CSP,
    logo: { type: 'image/svg+xml', content: favicon, href: '/', target: '_self' },
    theme: {
      title: 'Voxsmith API reference',
      css: [{ filename: 'voxsmith.css', content: read('docs.css').toString('utf8') }],
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: favicon }],
    },
    uiConfig: {
      // Deep links put a link inside each operation's toggle button (axe: nested interactive controls).
      deepLinking: false,
      tryItOutEnabled: false,
      displayRequestDuration: true,
      // Session cookies ride along on the dashboard's origin, so a signed-in browser can try calls at once.
      withCredentials: true,
      // The page's own setup names the default plugins; a list here replaces it, so the default comes first.
      plugins: [
        browserFunction<SwaggerPlugin>('SwaggerUIBundle.plugins.DownloadUrl'),
        browserFunction<SwaggerPlugin>(AUDIO_PLUGIN),
        browserFunction<SwaggerPlugin>(A11Y_PLUGIN),
      ],
    },
  };
}
