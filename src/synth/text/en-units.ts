// Units of measure and currencies after (or before) English numbers, with their spoken names. Written once here;
// the rules in normalize-en.ts and en-measures.ts read these tables.
import { cardinal, decimal, integerWords } from './number-words.ts';

export interface Unit {
  /** The written forms, a regex alternative; case matters ("m" is meters, "M" a million). */
  forms: string;
  one: string;
  many: string;
}

const u = (forms: string, one: string, many = `${one}s`): Unit => ({ forms, one, many });

// Forms that are also common words ("in", "s", "A", "t", "l") are left out or guarded by the rule that reads them.
export const UNITS: readonly Unit[] = [
  // Speed and rates first: "km/h" before "km".
  u('km/h|kph|kmh|km/hr', 'kilometer per hour', 'kilometers per hour'),
  u('mph', 'mile per hour', 'miles per hour'),
  u('m/s', 'meter per second', 'meters per second'),
  u('ft/s', 'foot per second', 'feet per second'),
  u('kn|kts', 'knot'),
  u('mpg', 'mile per gallon', 'miles per gallon'),
  u('Gbps|Gbit/s', 'gigabit per second', 'gigabits per second'),
  u('Mbps|Mbit/s', 'megabit per second', 'megabits per second'),
  u('[kK]bps|kbit/s', 'kilobit per second', 'kilobits per second'),
  u('GB/s', 'gigabyte per second', 'gigabytes per second'),
  u('MB/s', 'megabyte per second', 'megabytes per second'),
  u('fps', 'frame per second', 'frames per second'),
  u('rpm|RPM', 'R P M', 'R P M'),
  u('bpm', 'beat per minute', 'beats per minute'),
  // Area and volume.
  u('km²|km2|sq\\.? ?km', 'square kilometer'),
  u('m²|sq\\.? ?m', 'square meter'),
  u('cm²', 'square centimeter'),
  u('ft²|sq\\.? ?ft\\.?', 'square foot', 'square feet'),
  u('mi²|sq\\.? ?mi', 'square mile'),
  u('in²', 'square inch', 'square inches'),
  u('m³', 'cubic meter'),
  u('cm³|cc', 'cubic centimeter'),
  u('ft³|cu\\.? ?ft', 'cubic foot', 'cubic feet'),
  u('ha', 'hectare'),
  u('fl\\.? ?oz', 'fluid ounce'),
  u('µL|μL', 'microliter'),
  u('mL|ml', 'milliliter'),
  u('cL|cl', 'centiliter'),
  u('dL|dl', 'deciliter'),
  u('L', 'liter'),
  u('gal', 'gallon'),
  u('qt', 'quart'),
  u('tbsp|Tbsp|tbs', 'tablespoon'),
  u('tsp', 'teaspoon'),
  // Length.
  u('km', 'kilometer'),
  u('cm', 'centimeter'),
  u('mm', 'millimeter'),
  u('µm|μm', 'micrometer'),
  u('nm', 'nanometer'),
  u('m', 'meter'),
  u('mi', 'mile'),
  u('yds?', 'yard'),
  u('ft', 'foot', 'feet'),
  // Mass.
  u('kg', 'kilogram'),
  u('mg', 'milligram'),
  u('µg|μg|mcg', 'microgram'),
  u('g', 'gram'),
  u('lbs?', 'pound'),
  u('oz', 'ounce'),
  // Time.
  u('hrs?|h', 'hour'),
  u('mins?', 'minute'),
  u('secs?|s', 'second'),
  u('ms', 'millisecond'),
  u('µs|μs', 'microsecond'),
  u('ns', 'nanosecond'),
  u('yrs?', 'year'),
  u('wks?', 'week'),
  u('mos?', 'month'),
  // Data.
  u('PB', 'petabyte'),
  u('TB', 'terabyte'),
  u('GB', 'gigabyte'),
  u('MB', 'megabyte'),
  u('KB|kB', 'kilobyte'),
  u('Gb', 'gigabit'),
  u('Mb', 'megabit'),
  u('Kb|kb', 'kilobit'),
  // Frequency, power, electricity, energy, pressure, sound.
  u('GHz', 'gigahertz', 'gigahertz'),
  u('MHz', 'megahertz', 'megahertz'),
  u('kHz', 'kilohertz', 'kilohertz'),
  u('Hz', 'hertz', 'hertz'),
  u('GWh', 'gigawatt hour'),
  u('MWh', 'megawatt hour'),
  u('kWh', 'kilowatt hour'),
  u('Wh', 'watt hour'),
  u('GW', 'gigawatt'),
  u('MW', 'megawatt'),
  u('kW', 'kilowatt'),
  u('mW', 'milliwatt'),
  u('W', 'watt'),
  u('kV', 'kilovolt'),
  u('mV', 'millivolt'),
  u('V', 'volt'),
  u('mAh', 'milliamp hour'),
  u('mA', 'milliamp'),
  u('kΩ', 'kilohm'),
  u('Ω|ohms?', 'ohm'),
  u('kcal', 'kilocalorie'),
  u('cal', 'calorie'),
  u('kJ', 'kilojoule'),
  u('kPa', 'kilopascal'),
  u('hPa', 'hectopascal'),
  u('psi|PSI', 'P S I', 'P S I'),
  u('atm', 'atmosphere'),
  u('mmHg', 'millimeter of mercury', 'millimeters of mercury'),
  u('dB', 'decibel'),
  u('ppm', 'part per million', 'parts per million'),
  u('ppb', 'part per billion', 'parts per billion'),
  u('px', 'pixel'),
  u('dpi', 'D P I', 'D P I'),
  u('IU', 'international unit'),
  u('pts?', 'point'),
  u('pcs', 'piece'),
  // Temperature and angle.
  u('° ?C', 'degree Celsius', 'degrees Celsius'),
  u('° ?F', 'degree Fahrenheit', 'degrees Fahrenheit'),
  u('℃', 'degree Celsius', 'degrees Celsius'),
  u('℉', 'degree Fahrenheit', 'degrees Fahrenheit'),
  u('°', 'degree'),
];

export const UNIT_ALT = UNITS.map((x) => x.forms).join('|');

export function unitOf(written: string): Unit | undefined {
  return UNITS.find((x) => new RegExp(`^(?:${x.forms})$`).test(written));
}

export interface Currency {
  one: string;
  many: string;
  subOne?: string;
  subMany?: string;
}

const c = (one: string, many: string, subOne?: string, subMany?: string): Currency => ({ one, many, subOne, subMany });
const DOLLAR = c('dollar', 'dollars', 'cent', 'cents');
const dollar = (country: string): Currency => c(`${country} dollar`, `${country} dollars`, 'cent', 'cents');

/** Currency signs, the longest first where one contains another ("US$" before "$"). */
export const CURRENCY_SIGNS: Readonly<Record<string, Currency>> = {
  US$: dollar('U S'),
  C$: dollar('Canadian'),
  CA$: dollar('Canadian'),
  A$: dollar('Australian'),
  AU$: dollar('Australian'),
  NZ$: dollar('New Zealand'),
  HK$: dollar('Hong Kong'),
  S$: dollar('Singapore'),
  R$: c('real', 'reais', 'centavo', 'centavos'),
  $: DOLLAR,
  '£': c('pound', 'pounds', 'penny', 'pence'),
  '€': c('euro', 'euros', 'cent', 'cents'),
  '¥': c('yen', 'yen'),
  '₹': c('rupee', 'rupees', 'paisa', 'paise'),
  '₩': c('won', 'won'),
  '₽': c('ruble', 'rubles', 'kopek', 'kopeks'),
  '₺': c('lira', 'lira', 'kurus', 'kurus'),
  '₪': c('shekel', 'shekels', 'agora', 'agorot'),
  '₫': c('dong', 'dong'),
  '฿': c('baht', 'baht', 'satang', 'satang'),
  '₱': c('peso', 'pesos', 'centavo', 'centavos'),
  '₦': c('naira', 'naira', 'kobo', 'kobo'),
  '₴': c('hryvnia', 'hryvnias', 'kopiyka', 'kopiykas'),
  'Rs.': c('rupee', 'rupees', 'paisa', 'paise'),
  Rs: c('rupee', 'rupees', 'paisa', 'paise'),
  zł: c('zloty', 'zlotys', 'grosz', 'groszy'),
};

/** ISO 4217 codes people write beside amounts ("40 CHF", "EUR 1.50"). PHP is left out: it is a language too. */
export const CURRENCY_CODES: Readonly<Record<string, Currency>> = {
  USD: DOLLAR,
  EUR: CURRENCY_SIGNS['€'],
  GBP: CURRENCY_SIGNS['£'],
  JPY: CURRENCY_SIGNS['¥'],
  INR: CURRENCY_SIGNS['₹'],
  CHF: c('Swiss franc', 'Swiss francs', 'centime', 'centimes'),
  CAD: dollar('Canadian'),
  AUD: dollar('Australian'),
  NZD: dollar('New Zealand'),
  HKD: dollar('Hong Kong'),
  SGD: dollar('Singapore'),
  CNY: c('yuan', 'yuan', 'fen', 'fen'),
  RMB: c('yuan', 'yuan', 'fen', 'fen'),
  KRW: CURRENCY_SIGNS['₩'],
  RUB: CURRENCY_SIGNS['₽'],
  TRY: CURRENCY_SIGNS['₺'],
  ILS: CURRENCY_SIGNS['₪'],
  BRL: CURRENCY_SIGNS.R$,
  MXN: c('Mexican peso', 'Mexican pesos', 'centavo', 'centavos'),
  ZAR: c('rand', 'rand', 'cent', 'cents'),
  SEK: c('Swedish krona', 'Swedish kronor', 'ore', 'ore'),
  NOK: c('Norwegian krone', 'Norwegian kroner', 'ore', 'ore'),
  DKK: c('Danish krone', 'Danish kroner', 'ore', 'ore'),
  PLN: c('zloty', 'zlotys', 'grosz', 'groszy'),
  CZK: c('Czech koruna', 'Czech korunas'),
  HUF: c('forint', 'forints'),
  THB: CURRENCY_SIGNS['฿'],
  IDR: c('rupiah', 'rupiahs'),
  VND: CURRENCY_SIGNS['₫'],
  NGN: CURRENCY_SIGNS['₦'],
  UAH: CURRENCY_SIGNS['₴'],
  BTC: c('bitcoin', 'bitcoins'),
};

const escape = (s: string): string => s.replace(/[$.]/g, (c) => `\\${c}`);
/** Currency signs as a regex alternative, longest first. */
export const SIGN_ALT = Object.keys(CURRENCY_SIGNS)
  .sort((a, b) => b.length - a.length)
  .map(escape)
  .join('|');
export const CODE_ALT = Object.keys(CURRENCY_CODES).join('|');

export const SCALE_WORDS: Readonly<Record<string, string>> = {
  thousand: 'thousand',
  k: 'thousand',
  million: 'million',
  m: 'million',
  mn: 'million',
  billion: 'billion',
  b: 'billion',
  bn: 'billion',
  trillion: 'trillion',
  t: 'trillion',
  tn: 'trillion',
};

/**
 * An amount of money in words. `attributive` is the amount as an adjective ("a five thousand dollar prize"):
 * the unit in the singular, the cents after it.
 */
export function money(cur: Currency, amount: string, scale: string | undefined, attributive = false): string {
  const plain = amount.replace(/,/g, '');
  if (scale) return `${decimal(plain)} ${SCALE_WORDS[scale.toLowerCase()]} ${attributive ? cur.one : cur.many}`;
  const [int, frac = ''] = plain.split('.');
  // More than two decimals, or a currency without a minor unit in use, is read as a plain decimal amount.
  if (frac.length > 2 || (frac !== '' && !cur.subOne)) return `${decimal(plain)} ${attributive || plain === '1' ? cur.one : cur.many}`;
  const units = Number(int || '0');
  const cents = frac === '' ? 0 : Number(frac.padEnd(2, '0'));
  const main = `${integerWords(int || '0')} ${units === 1 || attributive ? cur.one : cur.many}`;
  const sub = `${cardinal(cents)} ${cents === 1 || attributive ? cur.subOne : cur.subMany}`;
  if (cents === 0) return main;
  if (units === 0) return sub;
  return attributive ? `${main} ${sub}` : `${main} and ${sub}`;
}

/** "$5-10": the currency is said once, after the second amount ("five to ten dollars"). */
export function moneyRange(cur: Currency, from: string, to: string | undefined, scale: string | undefined, attributive = false): string {
  if (to === undefined) return money(cur, from, scale, attributive);
  const first = /\.\d/.test(from) && !scale ? money(cur, from, undefined) : decimal(from);
  return `${first} to ${money(cur, to, scale, attributive)}`;
}
