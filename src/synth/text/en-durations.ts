// Durations written short: "2h 30m", "1h15", "3h 12m 5s", and a bare "45m" where a duration is meant ("takes
// 45m"); elsewhere "m" after a number stays meters ("25m long"). Read before the units, which would take the
// "m" of "2h 30m" for meters.
import { isAttributive, lookBehind, type Rule } from './en-context.ts';
import { cardinal } from './number-words.ts';

const count = (n: string, one: string, attributive: boolean): string =>
  `${cardinal(Number(n))} ${n === '1' || attributive ? one : `${one}s`}`;

// Words before a bare number of "m" that make it minutes: "takes 45m", "waited 20m", "another 10m".
const DURATION_BEFORE =
  /\b(?:takes?|took|taking|lasts?|lasted|lasting|waits?|waited|waiting|spen[dt]s?|spending|runs?|ran|running|needs?|needed|charging|another|extra|within|for|every|each|only|just)\s+$/i;
// Words after it that do: "20m left", "5m ago", "10m to go".
const DURATION_AFTER = /^\s+(?:ago|left|remaining|later|to go|from now|late|early|delay|break|nap|walk|drive|ride)\b/i;

export const DURATION_RULES: readonly Rule[] = [
  // Hours and minutes (and seconds): "2h 30m", "1h15", "1 h 45 min", "4h 5m 30s".
  [
    /(?<![\w.,])(\d{1,3})\s?h(?:rs?)?\s?(\d{1,2})(?:\s?(?:m|mins?|minutes?)(?![\w])(?:\s?(\d{1,2})\s?(?:s|secs?|seconds?)(?![\w]))?|(?![\w:]|[.,]\d))/g,
    (m, text) => {
      const adjective = isAttributive(text, m.index, m.index + m[0].length);
      const seconds = m[3] === undefined ? '' : ` ${count(m[3], 'second', adjective)}`;
      return `${count(m[1], 'hour', adjective)} ${count(m[2], 'minute', adjective)}${seconds}`;
    },
  ],
  // A bare "45m" where a duration is meant.
  [
    /(?<![\w.,])(\d{1,3})m(?![\w])/g,
    (m, text) => {
      const before = lookBehind(text, m.index);
      const after = text.slice(m.index + m[0].length);
      if (!DURATION_BEFORE.test(before) && !DURATION_AFTER.test(after)) return undefined;
      // "runs 100m", "for 400m": a distance after a verb of moving stays meters unless a time word follows.
      if (/\b(?:runs?|ran|running|for)\s+$/i.test(before) && !DURATION_AFTER.test(after)) return undefined;
      return count(m[1], 'minute', isAttributive(text, m.index, m.index + m[0].length));
    },
  ],
];
