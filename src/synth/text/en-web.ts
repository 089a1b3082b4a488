// Web addresses, e-mail addresses, handles, hashtags, version numbers and IP addresses read aloud the way a
// presenter reads them: "www.example.com/help" is "W W W dot example dot com slash help" (the "https://" is not
// read), "jane.doe@mail.co.uk" is "jane dot doe at mail dot co dot U K", "v2.4.1" is "version two point four
// point one", "192.168.0.1" is "one ninety-two..."; read per octet with "dot".
import { SENTENCE_STARTERS, type Rule } from './en-context.ts';
import { cardinal, digits, integerWords, year } from './number-words.ts';

// Top-level domains that mark a bare "name.tld" as an address (written in lower case).
const TLDS =
  'com|org|net|edu|gov|mil|int|info|biz|io|ai|co|app|dev|tv|me|ly|gg|fm|xyz|online|site|tech|store|blog|news|cloud|' +
  'page|wiki|shop|museum|travel|uk|us|ca|de|fr|es|it|nl|be|ch|at|se|no|dk|fi|pl|cz|ru|cn|jp|kr|in|au|nz|br|mx|ar|za|ie|eu|pt|gr|il|sg|hk|tw';
// Extensions after a name that make it a file name ("report.pdf") or a product name ("Node.js").
const FILE_EXTENSIONS =
  'js|ts|jsx|tsx|mjs|py|rb|rs|java|kt|swift|cpp|hpp|cs|php|html|htm|css|scss|json|xml|yml|yaml|toml|ini|cfg|md|txt|' +
  'csv|tsv|log|pdf|docx?|xlsx?|pptx?|odt|rtf|jpe?g|png|gif|svg|webp|bmp|tiff?|mp3|mp4|wav|flac|ogg|mov|avi|mkv|zip|' +
  'tar|gz|tgz|7z|rar|exe|dmg|iso|apk|sh|bat|ps1|sql|db|wasm';
// Labels said as words though they are two letters.
const SAID_AS_WORDS = new Set(['co', 'me', 'go', 'to', 'so', 'my', 'no', 'do']);

/** A run of digits inside an address: small numbers as numbers, longer ones digit by digit. */
function addressDigits(d: string): string {
  return d.length <= 2 ? integerWords(d) : digits(d);
}

const PUNCTUATION_WORDS: Readonly<Record<string, string>> = {
  '.': 'dot',
  '-': 'dash',
  _: 'underscore',
  '/': 'slash',
  '?': 'question mark',
  '=': 'equals',
  '&': 'and',
  '#': 'hash',
  '%': 'percent',
  '~': 'tilde',
  ':': 'colon',
  '+': 'plus',
  '@': 'at',
  '!': 'bang',
  ',': 'comma',
};

/** One piece of an address: letters kept (the engines say words), digits and punctuation spoken. */
function speakPiece(piece: string, spellShort: boolean): string {
  const out: string[] = [];
  for (const m of piece.matchAll(/([A-Za-z]+)|(\d+)|(.)/gsu)) {
    if (m[1] !== undefined) {
      const w = m[1];
      if (w.toLowerCase() === 'www') out.push('W W W');
      // Two-letter country domains and labels without a vowel are spelled: "U K", "B B C".
      else if (spellShort && w.length === 2 && !SAID_AS_WORDS.has(w.toLowerCase())) out.push(w.toUpperCase().split('').join(' '));
      else if (w.length <= 4 && !/[aeiouy]/i.test(w)) out.push(w.toUpperCase().split('').join(' '));
      else out.push(w);
    } else if (m[2] !== undefined) out.push(addressDigits(m[2]));
    else if (PUNCTUATION_WORDS[m[3]]) out.push(PUNCTUATION_WORDS[m[3]]);
  }
  return out.join(' ');
}

/** "mail.co.uk" -> "mail dot co dot U K". */
function speakHost(host: string): string {
  const labels = host.split('.');
  return labels.map((l, i) => speakPiece(l, i > 0 && i === labels.length - 1)).join(' dot ');
}

function speakUrl(url: string): string {
  const bare = url.replace(/^[a-z][a-z+.-]*:\/\//i, '');
  const cut = bare.search(/[/?#]/);
  const hostPort = cut < 0 ? bare : bare.slice(0, cut);
  const path = (cut < 0 ? '' : bare.slice(cut)).replace(/\/$/, '');
  const at = /^(.*?)(?::(\d+))?$/.exec(hostPort);
  const host = at?.[1] ?? hostPort;
  const port = at?.[2];
  return [speakHost(host), port ? `colon ${digits(port)}` : '', path ? speakPiece(path, false) : ''].filter(Boolean).join(' ');
}

/** "ThrowbackThursday" -> "Throwback Thursday", "BBCNews" -> "BBC News", "web3" -> "web three". */
function wordsApart(s: string): string {
  return s
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\d)/gu, '$1 $2')
    .replace(/(\d)(\p{L})/gu, '$1 $2')
    .replace(/\d+/g, (d) => (d.length === 4 && Number(d) >= 1100 && Number(d) <= 2099 ? year(Number(d)) : integerWords(d)));
}

// Punctuation that ends a sentence or clause right after an address is not part of it.
const TRAIL = /[.,;:!?)\]'"”’]+$/;

function trimmed(m: RegExpExecArray): { url: string; tail: string } {
  const tail = TRAIL.exec(m[0])?.[0] ?? '';
  return { url: m[0].slice(0, m[0].length - tail.length), tail };
}

export const WEB_RULES: readonly Rule[] = [
  // E-mail addresses.
  [
    /(?<![\w.+-])([A-Za-z0-9][A-Za-z0-9._%+-]*)@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\b/g,
    (m) => `${speakPiece(m[1], false)} at ${speakHost(m[2])}`,
  ],
  // Addresses with a scheme, "www." addresses, and bare host names under a known top-level domain.
  [
    new RegExp(
      `\\b(?:[a-z][a-z+.-]*://[^\\s<>"]+|www\\.[^\\s<>"]+|(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.)+(?:${TLDS})(?![\\w-])(?:[/?#][^\\s<>"]*)?)`,
      'g',
    ),
    (m) => {
      const { url, tail } = trimmed(m);
      if (!/[a-z]/i.test(url) || url.length < 4) return undefined;
      return `${speakUrl(url)}${tail}`;
    },
  ],
  // File names and dotted product names: "index.html", "Node.js" (espeak-ng would say the dot, flite would not).
  [
    new RegExp(`\\b([A-Za-z][\\w-]*)\\.(${FILE_EXTENSIONS})(?![\\w]|\\.\\w)`, 'g'),
    (m) => `${speakPiece(m[1], false)} dot ${speakPiece(m[2], false)}`,
  ],
  // Handles: "@nasa", "@jane_doe", "@BBCNews".
  [/(?<![\w@.])@([A-Za-z_][A-Za-z0-9_]{0,38})\b/g, (m) => `at ${m[1].split('_').filter(Boolean).map(wordsApart).join(' underscore ')}`],
  // Hashtags: "#summer", "#ThrowbackThursday" (its words apart).
  [/(?<![\w#&])#([A-Za-z][A-Za-z0-9_]*)/g, (m) => `hashtag ${wordsApart(m[1].replace(/_/g, ' '))}`],
];

// Capitalised words before a decimal that is a quantity, not a version ("Price 4.99", "May 3.5").
const NOT_PRODUCTS = new Set(
  (
    'price prices total cost costs score rating average mean median temperature weight height length width depth ' +
    'speed rate ratio balance grade gpa no vol fig figure table section chapter page pp eq equation step ' +
    'january february march april may june july august september october november december'
  ).split(' '),
);

/** "3.12" -> "three point twelve", "22.04" -> "twenty-two point oh four": each part a whole number. */
function versionParts(version: string): string {
  return version
    .split('.')
    .map((p, i) => (i > 0 && /^0\d?$/.test(p) ? (p === '0' ? 'oh' : `oh ${cardinal(Number(p))}`) : integerWords(p)))
    .join(' point ');
}

/** Version numbers and IP addresses, read after phone numbers have taken their dotted groups. */
export const VERSION_RULES: readonly Rule[] = [
  // Versions: "v2.4.1", "version 3.12", "ver. 2.0"; each part is a whole number ("three point twelve").
  [
    /\b(?:(v)|([Vv]ersion|[Vv]er\.|[Rr]elease|[Bb]uild)\s?)(\d+(?:\.\d+)+|\d+(?=\s|$|[,;:!?)]|\.(?!\d)))/g,
    (m) => {
      const parts = m[3].split('.');
      const spoken = parts
        .map((p, i) => (i > 0 && /^0\d?$/.test(p) ? (p === '0' ? 'oh' : `oh ${cardinal(Number(p))}`) : integerWords(p)))
        .join(' point ');
      return `${m[1] ? 'version' : m[2].toLowerCase() === 'ver.' ? 'version' : m[2]} ${spoken}`;
    },
  ],
  // A version after a product's name: "Python 3.12" is three point twelve, "Ubuntu 22.04" twenty-two point oh
  // four, "iOS 17.4" seventeen point four; a decimal would read "three point one two".
  [
    /(?<=(?:^|[^\p{L}\p{N}])(\p{Lu}[\p{L}+#]*|\p{Ll}+\p{Lu}\p{L}*)\s)(\d+(?:\.\d+)+)(?![\p{L}\p{N}]|\.\d|\s?%|\s?[-–]\s?\d)/gu,
    (m, text) => {
      const name = m[1];
      if (SENTENCE_STARTERS.has(name) || NOT_PRODUCTS.has(name.toLowerCase()) || /^[A-Z]{3}$/.test(name)) return undefined;
      // A quantity with its unit ("Weight 3.25 kg") is no version.
      if (
        /^\s?[a-zA-Zµ°]{1,3}\b/.test(text.slice(m.index + m[0].length)) &&
        !/^\s+(?:is|was|has|and|or|on|in|for|to|at|as)\b/.test(text.slice(m.index + m[0].length))
      )
        return undefined;
      return versionParts(m[2]);
    },
  ],
  // IP addresses: four parts of at most 255.
  [
    /(?<![\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\w]|\.\d)/g,
    (m) => {
      const parts = m.slice(1, 5).map(Number);
      return parts.every((p) => p <= 255) ? parts.map(cardinal).join(' dot ') : undefined;
    },
  ],
  // Other dotted sequences are versions: "2.4.1" is "two point four point one".
  [
    /(?<![\w.])(?!\d{1,2}\.\d{1,2}\.\d{4}(?![\d.]))\d+(?:\.\d+){2,}(?![\w]|\.\d)/g,
    (m) =>
      m[0]
        .split('.')
        .map((p, i) => (i > 0 && p === '0' ? 'oh' : integerWords(p)))
        .join(' point '),
  ],
];
