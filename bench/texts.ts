// The texts every measurement speaks. The one-sentence text is also the paragraph's first sentence, so
// the first-chunk comparison between them isolates the effect of the text's length.

/** 25 words, for the engines' real-time factor. */
export const SENTENCE_25_WORDS =
  'The library on the corner opens at nine every morning, and the reading room upstairs fills with students long before the coffee shop next door.';

/** One sentence of ordinary length. */
export const ONE_SENTENCE =
  'The old lighthouse keeper climbed the winding stairs every evening to light the lamp before the ships came home.';

/** A short sentence, for throughput (requests per second). */
export const SHORT_SENTENCE = 'Thank you for calling, please hold the line.';

const PARAGRAPH_SENTENCES = [
  ONE_SENTENCE,
  'He had done it for forty years, through storms that shook the glass and calm nights when the sea lay flat and silver under the moon.',
  'The village below knew the rhythm of his footsteps on the stone, and children would wave from the harbour wall when the beam first swept across the water.',
  'In winter the wind came straight from the north, carrying salt and ice, and the keeper wrapped himself in two coats and a scarf his sister had knitted.',
  'He kept a logbook of every ship that passed, written in a careful hand, with the weather, the hour, and a short note about anything unusual he had seen.',
  'Some nights there was nothing to write but the names of the stars, and he wrote those too, because the habit of writing kept his mind awake.',
  'When the harbour board decided to automate the light, they sent a young engineer with a box of electronics and a polite letter of thanks.',
  'The keeper showed him the stairs, the lamp, the brass fittings he had polished for decades, and the small window where the kettle always stood.',
  'The engineer listened, took notes, and promised that the new light would be just as bright, though it would never climb the stairs by itself.',
  'On the last evening the keeper lit the lamp one final time, sat by the window with his tea, and watched the beam turn slowly over the dark water.',
  'The next morning he walked down to the village, where the baker had saved him a warm loaf and the children asked if he would still tell them stories.',
  'He said he would, and he did, every Sunday afternoon on the bench by the harbour wall.',
  'The engineer visited once a year to check the new light, and each time he brought a jar of honey from his mother, who remembered the keeper from her own childhood by the sea.',
  'Years later the logbooks went to the town museum, where visitors still read the careful notes about ships, storms and stars in a small quiet room that smells of old paper.',
];

/** 2 000 characters, fourteen sentences (about two minutes of speech). */
export const PARAGRAPH_2000 = PARAGRAPH_SENTENCES.join(' ');

/** Three sentences, about 400 characters (~25 s of speech): a stream of the stall measurement. */
export const PARAGRAPH_400 = PARAGRAPH_SENTENCES.slice(0, 3).join(' ');

/** Two sentences (~13 s of speech): the concurrency ramp's paragraph, short so the ramp can go high. */
export const PARAGRAPH_RAMP = PARAGRAPH_SENTENCES.slice(0, 2).join(' ');

/** The voices measured: flite's default English voice and an espeak English one. */
export const VOICES = ['flite-slt', 'espeak-en-us-male-1'] as const;

/** Short everyday sentences for the recognizer check (section 12): many start with soft onsets (th, p, f). */
export const WER_SENTENCES = [
  'The children walked to school.',
  'Please close the door.',
  'Fresh bread is on the table.',
  'Thank you for coming.',
  'The doctor will see you now.',
  'Put the milk in the fridge.',
  'She reads a book every night.',
  'We are going to the park.',
  'The train leaves at ten.',
  'Feed the cat before you go.',
  'His car is parked outside.',
  'Turn off the lights please.',
  'The water is very cold today.',
  'Pass me the salt and pepper.',
  'Five people came to the meeting.',
  'The shop opens at nine.',
  'My sister lives in the city.',
  'Please call me tomorrow morning.',
  'The garden needs more water.',
  'They played football after lunch.',
  'Think before you speak.',
  'The phone is ringing again.',
  'Fill the glass with juice.',
  'Take your coat with you.',
  'The baby is sleeping upstairs.',
];
