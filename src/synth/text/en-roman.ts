// Roman numerals in English text, read by their context the way style guides read them aloud: after a
// monarch's or a pope's name as an ordinal with "the" ("Elizabeth II" is Elizabeth the second, "Henry Ford II"
// Henry Ford the second), after "Chapter", "Part", "World War", "Super Bowl" and other titled things as a
// cardinal ("Chapter IX" is chapter nine), and otherwise as a cardinal wherever an engine would read the letters
// as a numeral itself: espeak-ng says "Roman eight" for a bare "VIII" (all capitals or all lower case, values
// 2-49, the words in its dictionary aside), and flite has rules of its own, so no such token may reach them.
import { atSentenceStart, lookBehind, SENTENCE_STARTERS, type Rule } from './en-context.ts';
import { cardinal, ordinal } from './number-words.ts';

const VALUES: Readonly<Record<string, number>> = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
const CANONICAL: readonly (readonly [number, string])[] = [
  [1000, 'M'],
  [900, 'CM'],
  [500, 'D'],
  [400, 'CD'],
  [100, 'C'],
  [90, 'XC'],
  [50, 'L'],
  [40, 'XL'],
  [10, 'X'],
  [9, 'IX'],
  [5, 'V'],
  [4, 'IV'],
  [1, 'I'],
];

function toRoman(n: number): string {
  let out = '';
  for (const [v, r] of CANONICAL) {
    for (; n >= v; n -= v) out += r;
  }
  return out;
}

/** The value of a Roman numeral written the standard way ("XLVIII"), or undefined ("IIII", "VX", "MIXED"). */
function romanValue(token: string): number | undefined {
  const up = token.toUpperCase();
  if (!/^[IVXLCDM]+$/.test(up)) return undefined;
  let total = 0;
  for (let i = 0; i < up.length; i++) {
    const v = VALUES[up[i]];
    const next = i + 1 < up.length ? VALUES[up[i + 1]] : 0;
    total += next > v ? -v : v;
  }
  return total >= 1 && total <= 3999 && toRoman(total) === up ? total : undefined;
}

// Monarchs, popes, pharaohs and other rulers numbered by their reigns; after these even "I", "V" and "X" are
// numerals ("Elizabeth I", "Henry V", "Charles X").
const REGNAL = new Set(
  (
    'Adolf Afonso Albert Alexander Alfonso Amenhotep Anne Antiochus Augustus Baldwin Benedict Boleslaw Boniface Carl ' +
    'Carlos Casimir Catherine Celestine Charles Christian Christina Clement Constantine Cyrus Darius David Edmund ' +
    'Edward Elizabeth Eric Erik Ferdinand Francis Franz Frederick Frederik Friedrich George Gregory Gustav Gustaf ' +
    'Gustavus Haakon Harald Henri Henry Honorius Hugh Innocent Isabella Ivan James Jean Joanna John Joseph Juan ' +
    'Julius Karl Leo Leopold Louis Ludwig Magnus Manuel Margaret Maria Mary Matilda Maximilian Mehmed Michael Murad ' +
    'Napoleon Nicholas Olaf Otto Paul Pedro Peter Philip Philippe Pius Ptolemy Rama Ramesses Ramses Richard Robert ' +
    'Rudolf Sancho Sebastian Selim Seti Sigismund Sixtus Stephen Suleiman Sweyn Thutmose Urban Valdemar Victor ' +
    'Victoria Vladimir Wilhelm Willem William Malcolm Kamehameha Tutankhamun Felipe Fernando Enrique Umberto Vittorio'
  ).split(' '),
);

// Given names that take a generational suffix ("Robert Griffin III"); only numerals of two letters or more.
const GIVEN = new Set(
  (
    'Aaron Adam Alan Andrew Anthony Arthur Benjamin Billy Bobby Brian Bruce Cal Daniel Davis Dennis Donald Douglas ' +
    'Edwin Ernest Eugene Frank Gary Gerald Harold Harry Howard Jack Jacob Jeffrey Jerry Jesse Jim Joe Johnny Jonathan ' +
    'Keith Kenneth Kevin Lawrence Larry Lewis Martin Matthew Nathan Patrick Ralph Randolph Raymond Roger Ronald Roy ' +
    'Russell Samuel Scott Steven Theodore Thomas Thurston Timothy Walter Wayne Willie'
  ).split(' '),
);

// Titled things numbered by a cardinal: "Chapter IX", "World War II", "Super Bowl LVII", "Title IX".
const CARDINAL_AFTER = new Set(
  (
    'chapter chapters part parts book books volume vol act scene section article title episode phase stage level ' +
    'type class grade series appendix annex canto psalm psalms figure fig table plate division tier category round ' +
    'bowl war olympiad amendment clause schedule unit lesson step option mark mk page pages'
  ).split(' '),
);
// After these even a single-letter numeral is one ("World War I", "Part V", "Type I diabetes").
const SINGLE_LETTER_AFTER = new Set(
  'chapter part book volume act scene section article title canto psalm appendix phase stage type class grade level war bowl episode'.split(
    ' ',
  ),
);

// Letters espeak-ng and style guides read as letters, not numbers: shirt sizes, ratings.
const LETTERS_NOT_NUMERALS = new Set(['XL', 'XXL', 'XXX', 'xl', 'xxx']);
// Lower-case words that espeak-ng would still read as numerals: spelled ("vi" the editor, "xx" kisses).
const SPELLED: Readonly<Record<string, string>> = { vi: 'V I', xx: 'X X' };

function isCapitalised(word: string | undefined): word is string {
  return word !== undefined && /^\p{Lu}\p{Ll}/u.test(word);
}

/** The reading of a numeral token by its context, or undefined to leave it. */
function readRoman(token: string, text: string, index: number): string | undefined {
  const value = romanValue(token);
  if (value === undefined) return undefined;
  const lower = token === token.toLowerCase();
  if (!lower && token !== token.toUpperCase()) return undefined;
  const before = lookBehind(text, index);
  const prevMatch = /([\p{L}]+)\.?\s+$/u.exec(before);
  const prev = prevMatch?.[1];
  const prev2 = prevMatch ? /([\p{L}]+)\s+$/u.exec(before.slice(0, prevMatch.index))?.[1] : undefined;
  const prevKey = prev?.toLowerCase();
  // "the XIX century", "the XVIII Dynasty": ordinals.
  if (token.length > 1 && /^\s+(?:century|centuries|millennium|dynasty|Dynasty|Century)\b/.test(text.slice(index + token.length)))
    return ordinal(value);

  if (token.length === 1) {
    // "John V. Smith": a middle initial.
    if (lower || !prev || /^\.\s+\p{Lu}/u.test(text.slice(index + 1))) return undefined;
    if (REGNAL.has(prev) && !(token === 'X' && prev === 'Malcolm')) return `the ${ordinal(value)}`;
    if (isCapitalised(prev) && prevKey && SINGLE_LETTER_AFTER.has(prevKey)) return cardinal(value);
    // "Saturn V rocket", "Grand Theft Auto V": a V after a name is a numeral, unless a period makes it an initial.
    if (token === 'V' && isCapitalised(prev) && !SENTENCE_STARTERS.has(prev) && !text.startsWith('.', index + 1)) return cardinal(value);
    return undefined;
  }
  if (
    !lower &&
    isCapitalised(prev) &&
    (REGNAL.has(prev) || GIVEN.has(prev) || (isCapitalised(prev2) && (REGNAL.has(prev2) || GIVEN.has(prev2))))
  ) {
    return `the ${ordinal(value)}`;
  }
  if (prevKey && CARDINAL_AFTER.has(prevKey)) return cardinal(value);
  if (LETTERS_NOT_NUMERALS.has(token)) return undefined;
  if (SPELLED[token]) return SPELLED[token];
  // "an IV drip" is spelled.
  if (prevKey === 'an') return token.toUpperCase().split('').join(' ');
  // "Final Fantasy VII", "Apollo XI": a titled thing after a capitalised word. Sequels and series stay small;
  // "Washington DC" and "Nikon DX" are letters.
  const titleLike = value <= 39 || (token.length >= 3 && value < 100);
  if (!lower && titleLike && isCapitalised(prev) && !SENTENCE_STARTERS.has(prev) && !atSentenceStart(before, prevMatch?.index ?? 0))
    return cardinal(value);
  // What an engine would read as a numeral by itself, and long all-capital numerals ("MCMXCIX").
  if ((value >= 2 && value <= 49) || (!lower && token.length >= 4)) return cardinal(value);
  return undefined;
}

export const ROMAN_RULES: readonly Rule[] = [
  // "WWII", "WW2": the world wars by their short names.
  [/\bWW(I{1,2}|[12])\b/g, (m) => `World War ${m[1] === 'I' || m[1] === '1' ? 'one' : 'two'}`],
  [
    /(?<![\p{L}\p{N}'’.-])([IVXLCDM]+|[ivxlcdm]+)(['’]s)?(?![\p{L}\p{N}]|['’]\p{L}|\.\p{L})/gu,
    (m, text) => {
      const words = readRoman(m[1], text, m.index);
      return words === undefined ? undefined : `${words}${m[2] ?? ''}`;
    },
  ],
];
