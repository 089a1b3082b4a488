// Held-out English sentences: written before the normalizer was tuned on the development corpus
// (normalize-en.corpus.ts) and never used while tuning it. Each names every reading a careful reader would
// accept; a sentence counts as misread when an engine's phonemes for the service's text match none of them.
// Only the rate is asserted (test/synth/text/normalize-en.heldout.test.ts), so no rule is written for one line.

export interface HeldOutSentence {
  written: string;
  /** Accepted spoken forms; the first is the one a style guide would print. */
  spoken: readonly string[];
}

const s = (written: string, ...spoken: string[]): HeldOutSentence => ({ written, spoken });

export const HELD_OUT: readonly HeldOutSentence[] = [
  // Roman numerals in context, and capital letters that are not numerals.
  s('Queen Elizabeth II opened the new bridge.', 'Queen Elizabeth the second opened the new bridge.'),
  s('Read Chapter IX before the seminar.', 'Read Chapter nine before the seminar.'),
  s('My grandfather served in World War I.', 'My grandfather served in World War one.'),
  s('Super Bowl XLVIII was played in New Jersey.', 'Super Bowl forty-eight was played in New Jersey.'),
  s('Pope Benedict XVI resigned in 2013.', 'Pope Benedict the sixteenth resigned in twenty thirteen.'),
  s('Louis XIV built the palace at Versailles.', 'Louis the fourteenth built the palace at Versailles.'),
  s('Title IX changed college sports.', 'Title nine changed college sports.'),
  s('Star Wars Episode IV is still my favorite.', 'Star Wars Episode four is still my favorite.'),
  s('Henry Ford II ran the company for decades.', 'Henry Ford the second ran the company for decades.'),
  s('I bought a CD and a DVD at the mall.', 'I bought a C D and a D V D at the mall.'),
  // Web addresses, e-mail, handles and tags.
  s('Visit www.example.com for details.', 'Visit w w w dot example dot com for details.'),
  s('Write to help@voxsmith.org today.', 'Write to help at voxsmith dot org today.'),
  s('Report bugs at github.com/voxsmith/app please.', 'Report bugs at github dot com slash voxsmith slash app please.'),
  s('Email jane.doe@mail.co.uk with questions.', 'Email jane dot doe at mail dot co dot uk with questions.'),
  s('Follow @nasa for launch updates.', 'Follow at nasa for launch updates.'),
  s('Post your photos with #summer this week.', 'Post your photos with hashtag summer this week.'),
  // Versions.
  s(
    'Update to version 2.4.1 tonight.',
    'Update to version two point four point one tonight.',
    'Update to version two dot four dot one tonight.',
  ),
  s('The app needs v3.2 or later.', 'The app needs version three point two or later.', 'The app needs v three point two or later.'),
  // Slash forms: dates by their weekday, fractions by their noun, words by their neighbours.
  s('The meeting is Tue 3/12 at noon.', 'The meeting is Tuesday March twelfth at noon.', 'The meeting is Tuesday, March twelfth at noon.'),
  s('Fri, 6/7 works for me.', 'Friday, June seventh works for me.'),
  s(
    'Mix 2/3 cup of flour with the butter.',
    'Mix two thirds cup of flour with the butter.',
    'Mix two thirds of a cup of flour with the butter.',
  ),
  s(
    'Only 1/4 of voters agreed.',
    'Only one quarter of voters agreed.',
    'Only a quarter of voters agreed.',
    'Only one fourth of voters agreed.',
  ),
  s('Use a 5/16 inch drill bit.', 'Use a five sixteenths inch drill bit.', 'Use a five sixteenths of an inch drill bit.'),
  s('Rooms w/ a view cost more.', 'Rooms with a view cost more.'),
  s('Enter your name and/or email.', 'Enter your name and or email.'),
  // Abbreviations with a period.
  s(
    'Call ext. 204 for billing.',
    'Call extension two oh four for billing.',
    'Call extension two zero four for billing.',
    'Call extension two hundred four for billing.',
  ),
  s('Col. Mustard was in the library.', 'Colonel Mustard was in the library.'),
  s('The board is 12 in. wide.', 'The board is twelve inches wide.'),
  s('Put it in. Then wait.', 'Put it in. Then wait.'),
  s(
    'See pp. 45–52 for the proof.',
    'See pages forty-five to fifty-two for the proof.',
    'See pages forty-five through fifty-two for the proof.',
  ),
  s('It takes approx. 20 minutes.', 'It takes approximately twenty minutes.'),
  s('Fig. 3 shows the results.', 'Figure three shows the results.'),
  s('Vol. 2 is out of print.', 'Volume two is out of print.'),
  s('Adm. Nelson won the battle.', 'Admiral Nelson won the battle.'),
  s('Sec. 4 covers refunds.', 'Section four covers refunds.'),
  // Units and currencies after numbers.
  s('Add 8 oz of cheese.', 'Add eight ounces of cheese.'),
  s('He ran it in 9.58 s flat.', 'He ran it in nine point five eight seconds flat.'),
  s('Inject 5 mL of saline.', 'Inject five milliliters of saline.'),
  s('The fee is 40 CHF per night.', 'The fee is forty Swiss francs per night.'),
  s('Drink 2 L of water a day.', 'Drink two liters of water a day.'),
  s('My line is 100 Mbps.', 'My line is one hundred megabits per second.'),
  s('He is 5 ft 10 in tall.', 'He is five feet ten inches tall.', 'He is five foot ten inches tall.'),
  s(
    'Bake at 180 °C for 25 min.',
    'Bake at one hundred eighty degrees Celsius for twenty-five minutes.',
    'Bake at one hundred and eighty degrees Celsius for twenty-five minutes.',
  ),
  s('The tank holds 15 gal.', 'The tank holds fifteen gallons.'),
  s('It runs on a 12 V battery.', 'It runs on a twelve volt battery.', 'It runs on a twelve volts battery.'),
  // Weekday ranges, the minus sign, the tilde.
  s('We are open Mon–Fri.', 'We are open Monday to Friday.', 'We are open Monday through Friday.'),
  s(
    'Office hours are Tue–Thu, 9–5.',
    'Office hours are Tuesday to Thursday, nine to five.',
    'Office hours are Tuesday through Thursday, nine to five.',
  ),
  s('It was −12 °C this morning.', 'It was minus twelve degrees Celsius this morning.'),
  s('Temperatures fell to -5 overnight.', 'Temperatures fell to minus five overnight.'),
  s('The trip takes ~3 hours.', 'The trip takes about three hours.', 'The trip takes approximately three hours.'),
  s('We expect ~200 guests.', 'We expect about two hundred guests.', 'We expect approximately two hundred guests.'),
  // Currency as an adjective.
  s('She won a $5,000 prize.', 'She won a five thousand dollar prize.'),
  s('He paid with a $20 bill.', 'He paid with a twenty dollar bill.'),
  s('The €50 fine was paid.', 'The fifty euro fine was paid.'),
  // Model numbers, routes, rooms.
  s('The Boeing 747 landed safely.', 'The Boeing seven forty-seven landed safely.'),
  s('The Airbus A380 is huge.', 'The Airbus A three eighty is huge.'),
  s('She drove Route 66 to California.', 'She drove Route sixty-six to California.'),
  s(
    'The class meets in Room 101.',
    'The class meets in Room one oh one.',
    'The class meets in Room one hundred one.',
    'The class meets in Room one hundred and one.',
  ),
  // Street numbers and addresses.
  s('She lives at 1600 Pennsylvania Ave.', 'She lives at sixteen hundred Pennsylvania Avenue.'),
  s('Meet me at 221B Baker St.', 'Meet me at two twenty-one B Baker Street.'),
  s('The office is at 350 Fifth Avenue.', 'The office is at three fifty Fifth Avenue.'),
  s('Send it to 4521 Oak Dr. in Austin.', 'Send it to forty-five twenty-one Oak Drive in Austin.'),
  // Times, ordinals, percentages, phone numbers, ranges, scores, years, decades, ISO dates.
  s('The game starts at 7:05 PM.', 'The game starts at seven oh five P M.'),
  s('She finished 21st out of 300.', 'She finished twenty-first out of three hundred.'),
  s('Inflation hit 3.4% in May.', 'Inflation hit three point four percent in May.'),
  s(
    'Call 1-888-555-0123 for help.',
    'Call one, eight eight eight, five five five, zero one two three for help.',
    'Call one, eight eight eight, five five five, oh one two three for help.',
  ),
  s('Children aged 5–12 may enter.', 'Children aged five to twelve may enter.'),
  s(
    'The Lakers won 102–98.',
    'The Lakers won one hundred two to ninety-eight.',
    'The Lakers won one oh two to ninety-eight.',
    'The Lakers won one hundred and two to ninety-eight.',
  ),
  s('In 1066 the Normans arrived.', 'In ten sixty-six the Normans arrived.'),
  s('The list has 1066 entries.', 'The list has one thousand sixty-six entries.', 'The list has one thousand and sixty-six entries.'),
  s("Fashion from the '70s is back.", 'Fashion from the seventies is back.'),
  s('The deadline is 2025-03-31.', 'The deadline is March thirty-first, twenty twenty-five.'),
  s('A 3x3 grid fits here.', 'A three by three grid fits here.'),
  s('It is 2x faster now.', 'It is two times faster now.'),
  s('Highs near 75°F are expected.', 'Highs near seventy-five degrees Fahrenheit are expected.'),
];
