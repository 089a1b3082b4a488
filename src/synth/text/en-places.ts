// Numbers that name rather than count, read in pairs as people say them: street numbers ("1600 Pennsylvania
// Ave." is sixteen hundred), rooms, flights and routes ("Room 101" is one oh one), model numbers ("Boeing 747"
// is seven forty-seven, "Airbus A380" A three eighty), video resolutions ("1080p"); and US state codes and ZIP
// codes in addresses ("Austin, TX 78701").
import { lookBehind, SENTENCE_STARTERS, type Rule } from './en-context.ts';
import { UNIT_ALT } from './en-units.ts';
import { digits, nominal } from './number-words.ts';

const STREET_TYPES =
  'Street|St\\.?|Avenue|Ave\\.?|Road|Rd\\.?|Boulevard|Blvd\\.?|Drive|Dr\\.?|Lane|Ln\\.?|Way|Court|Ct\\.?|Place|Pl\\.?|' +
  'Terrace|Ter\\.?|Parkway|Pkwy\\.?|Highway|Hwy\\.?|Circle|Cir\\.?|Square|Sq\\.?|Trail|Alley|Row|Crescent|Close|Plaza|' +
  'Pike|Turnpike|Expressway|Freeway|Loop|Walk|Mews|Gardens|Heights';
const COMPASS = '(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West|Northeast|Northwest|Southeast|Southwest)\\.?';
const STREET_WORDS: Readonly<Record<string, string>> = {
  St: 'Street',
  Ave: 'Avenue',
  Rd: 'Road',
  Blvd: 'Boulevard',
  Ln: 'Lane',
  Hwy: 'Highway',
  Pkwy: 'Parkway',
  Ct: 'Court',
  Pl: 'Place',
  Dr: 'Drive',
  Sq: 'Square',
  Ter: 'Terrace',
};
const COMPASS_WORDS: Readonly<Record<string, string>> = {
  N: 'North',
  S: 'South',
  E: 'East',
  W: 'West',
  NE: 'Northeast',
  NW: 'Northwest',
  SE: 'Southeast',
  SW: 'Southwest',
};
const STREET_AHEAD = `(?=\\s+(?:${COMPASS}\\s+)?(?:(?:[A-Z][\\p{L}'-]*|\\d+(?:st|nd|rd|th))\\s+){1,3}(?:${STREET_TYPES})(?![\\p{L}])|\\s+Broadway\\b)`;

// Words before a number that names a place or a thing in a series of names: "Room 101", "Flight 370".
const NAMING_WORDS =
  'room|rooms|suite|flight|route|highway|interstate|bus|gate|platform|channel|apartment|box|exit|track|studio|pier|' +
  'terminal|locker|ward|bay|hangar|dock|berth|cabin|booth|stand|court|form|model|ISO';

// Words before a number that counts ("Chapter 101", "Page 300"): never read as a name.
const COUNTING_WORDS = new Set(
  (
    'chapter chapters page pages section sections verse psalm volume issue episode season level grade step part ' +
    'article amendment exhibit figure table lesson unit day days week weeks year years act scene number rule item ' +
    'question problem exercise line paragraph book top under over about around nearly only just almost some all ' +
    'january february march april may june july august september october november december monday tuesday ' +
    'wednesday thursday friday saturday sunday total population mile miles kilometer kilometers'
  ).split(' '),
);

// Verbs that may follow a model number though they end in "s" ("the Boeing 747 carries ...").
const VERBS_IN_S = new Set(
  'does goes uses runs flies lands seats carries takes makes sits holds costs weighs features comes remains needs gets looks has was is'.split(
    ' ',
  ),
);

/** Whether the word after a number makes it a count ("London 350 people"), not a name. */
function countedAfter(after: string): boolean {
  const next = /^\s+([a-z]+)\b/.exec(after)?.[1];
  if (next === undefined) return false;
  if (/^(?:people|men|women|children|staff|police|cattle|sheep|fish|deer|personnel|feet)$/.test(next)) return true;
  return next.length >= 4 && next.endsWith('s') && !VERBS_IN_S.has(next);
}

const STATES: Readonly<Record<string, string>> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
};
// Codes that are also words or titles ("IN", "OK", "MD"): a state only when a ZIP code follows.
const AMBIGUOUS_STATES = new Set([
  'AL',
  'CO',
  'DE',
  'HI',
  'ID',
  'IN',
  'LA',
  'MA',
  'MD',
  'ME',
  'MS',
  'MT',
  'NE',
  'OH',
  'OK',
  'OR',
  'PA',
  'MO',
  'SC',
  'VA',
]);

/** Street numbers and compass points, read before units claim "5 W" (west) as watts. */
export const STREET_RULES: readonly Rule[] = [
  // "1600 Pennsylvania Ave.", "221B Baker St.", "350 Fifth Avenue", "4521 N. Oak Dr.", "1619 Broadway".
  [
    new RegExp(`(?<![\\p{L}\\p{N}.,$£€¥₹/:-])(\\d{1,5})([A-Za-z])?${STREET_AHEAD}`, 'gu'),
    (m) => `${nominal(m[1])}${m[2] ? ` ${m[2].toUpperCase()}` : ''}`,
  ],
  // Street types written short without a period, after the street's name: "123 Main St, Springfield".
  [
    /(?<=\p{Lu}[\p{L}'-]*\s)(St|Ave|Rd|Blvd|Ln|Hwy|Pkwy|Ct|Pl|Dr|Sq|Ter)(?=\s*(?:[,;:!?)]|$|\s+(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\b|\s+\d|\s+[a-z]))/gu,
    (m) => STREET_WORDS[m[1]],
  ],
  // A compass point before a street name: "W 42nd St", "N. Main St.".
  [
    new RegExp(`\\b(N|S|E|W|NE|NW|SE|SW)\\.?(?=\\s+(?:[A-Z][\\p{L}'-]*|\\d+(?:st|nd|rd|th))\\s+(?:${STREET_TYPES})(?![\\p{L}]))`, 'gu'),
    (m) => COMPASS_WORDS[m[1]],
  ],
];

/** Numbers that name things, after the quantities have taken theirs ("500 kW" stays a power). */
export const PLACE_RULES: readonly Rule[] = [
  // "Room 101", "Flight 370", "Interstate 405", "Box 1234", "ISO 9001".
  [
    new RegExp(`\\b(${NAMING_WORDS})\\s+(\\d{3,5})([A-Z])?(?![\\p{L}\\p{N}]|[.,:/]\\d|\\s?[-–]\\s?\\d)`, 'giu'),
    (m) => `${m[1]} ${nominal(m[2])}${m[3] ? ` ${m[3]}` : ''}`,
  ],
  // Serial and model numbers with a letter prefix: "A380", "F-150", "RTX-4090".
  [
    /\b([A-Z]{1,3})-?(\d{3,4})([a-z]{0,2})?(?![\p{L}\p{N}]|[.,:/]\d)/gu,
    (m) => {
      if (/^(?:Q|AD|BC|CE|BCE|USD|EUR|GBP|JPY|CHF)$/.test(m[1])) return undefined;
      return `${m[1]} ${nominal(m[2])}${m[3] ? ` ${m[3]}` : ''}`;
    },
  ],
  // Model numbers after a name: "Boeing 747", "Intel 8086", "Porsche 911", "Windows 2000", "Boeing 747-400".
  [
    /(?<=(?:^|[^\p{L}\p{N}])(\p{Lu}[\p{L}]*(?:-\p{Lu}[\p{L}]*)?)\s)(\d{3,4})(?:-(\d{2,4})(?![\p{N}]))?(s?)(?![\p{L}\p{N}]|[.,:/]\d|\s?[-–]\s?\d|\s?%)/gu,
    (m, text) => {
      const name = m[1];
      // A sentence may open with the name ("Xbox 360 sold well"), not with a word that opens sentences ("Call 911").
      if (COUNTING_WORDS.has(name.toLowerCase()) || SENTENCE_STARTERS.has(name)) return undefined;
      if (countedAfter(text.slice(m.index + m[0].length))) return undefined;
      const words = `${nominal(m[2])}${m[3] ? ` ${nominal(m[3])}` : ''}`;
      // "747s" are seven forty-sevens, "360s" three sixties.
      return m[4] ? words.replace(/y$/, 'ie') + 's' : words;
    },
  ],
  // A name joined to its number: "Blink-182", "Boeing-747".
  [/(?<=\b\p{Lu}\p{Ll}+-)(\d{3,4})(?![\p{L}\p{N}]|[.,]\d)/gu, (m) => nominal(m[1])],
  // Video resolutions: "1080p", "720p".
  [/\b(\d{3,4})([pi])\b/g, (m) => `${nominal(m[1])} ${m[2]}`],
  // "4K TV": the resolution, not four thousand.
  [
    /\b([248])K(?=\s+(?:TV|TVs|video|videos|display|displays|monitor|monitors|screen|screens|resolution|UHD|HDR|content|streaming|camera|cameras)\b)/g,
    (m) => `${digits(m[1])} K`,
  ],
  // US states before a ZIP code, and unambiguous ones after a city: "Austin, TX 78701" is Austin, Texas ...
  [
    /(?<=\p{Lu}[\p{L}.]*,\s)([A-Z]{2})\b(?:\s(\d{5})(?:-(\d{4}))?\b)?(?![\p{L}\p{N}]|\.\p{L})/gu,
    (m) => {
      const state = STATES[m[1]];
      if (!state || (!m[2] && AMBIGUOUS_STATES.has(m[1]))) return undefined;
      return `${state}${m[2] ? ` ${digits(m[2])}` : ''}${m[3] ? ` ${digits(m[3])}` : ''}`;
    },
  ],
];

// Words before a number whose letter names a flat, a room, a seat or a gate ("Flat 4B", "gate 12C"), never a unit
// or a magnitude ("4B" would otherwise be four billion, "3A" three amperes).
const LETTERED_PLACES =
  'flat|flats|apartment|apt\\.?|unit|room|rm\\.?|suite|ste\\.?|seat|seats|gate|gates|platform|pier|stand|dock|terminal|' +
  'block|floor|level|row|cabin|berth|locker|box|bed|ward|lot|plot|space|bay|stall|hall|building|bldg\\.?|desk|office|' +
  'studio|house|door|track|stop|bus|route|line|exit|junction|zone|court|hangar|booth|no\\.|number|#';
// Nouns after such a number that name what it labels: "the 5A bus", "a 7C form".
const LETTERED_NOUNS = 'bus|buses|train|trains|tram|trams|line|route|service|form|forms|pencil|pencils|stop|exit|motorway|road|entrance';

// Airlines' two-character codes said before a flight number without "flight" ("BA 283", "DL 44"); codes that are
// also common initialisms or states (AI, AM, CA, ET, LA ...) need "flight" before them.
const AIRLINES = new Set(
  (
    'AA AC AF AY AZ BA B6 CX CZ DL EI EK EY F9 FR IB JL JQ KE KL LH LO LX LY MH MU NH NK NZ OS OZ QF QR SK SN SQ ' +
    'SU SV TG TK TP U2 UA VS VY W6 WN WS'
  ).split(' '),
);
// Trains named by their class before the number ("ICE 592", "TGV 6201").
const TRAINS = 'ICE|TGV|AVE|RJX|IC|EC|IR|RE|EST';
const FLIGHT_BEFORE = /\b(?:flight|flights|flt\.?|train|trains|service|flew|fly|flies|flying|board|boarding|connection|connecting)\s+$/i;

/** A place's lettered number, read before durations and units can take its letter. */
export const LETTERED_RULES: readonly Rule[] = [
  // Flight and train numbers: "flight BA 283", "LH400", "ICE 592". The code is spelled (initialisms are read
  // last) and the number said the way its digits are grouped ("two eighty-three").
  [
    new RegExp(
      `(?<![\\p{L}\\p{N}.,$£€¥₹/-])([A-Z][A-Z0-9]|${TRAINS})(\\s?)(\\d{1,4})(?![\\p{L}\\p{N}]|[.,:/]\\d|\\s?[-–%]|\\s?(?:${UNIT_ALT})\\b)`,
      'gu',
    ),
    (m, text) => {
      const [, code, space, number] = m;
      if (!/[A-Z]/.test(code) || /^\d/.test(code)) return undefined;
      const train = new RegExp(`^(?:${TRAINS})$`).test(code);
      const flight = FLIGHT_BEFORE.test(lookBehind(text, m.index));
      // Joined, any two capitals before a flight-length number are a code ("EK215"); apart, only known codes.
      if (
        !flight &&
        !(space === '' && /^[A-Z]{2}$/.test(code) && number.length >= 2) &&
        !AIRLINES.has(code) &&
        !(train && code.length >= 3)
      )
        return undefined;
      return `${code} ${nominal(number)}`;
    },
  ],
  [
    new RegExp(`\\b(${LETTERED_PLACES})(\\s*)(\\d{1,5})([A-Za-z])(?![\\p{L}\\p{N}])`, 'giu'),
    (m) => `${m[1]}${m[2] || ' '}${nominal(m[3])} ${m[4].toUpperCase()}`,
  ],
  [new RegExp(`(?<![\\p{L}\\p{N}.,$£€¥₹])(\\d{1,4})([A-Z])(?=\\s+(?:${LETTERED_NOUNS})\\b)`, 'gu'), (m) => `${nominal(m[1])} ${m[2]}`],
];
