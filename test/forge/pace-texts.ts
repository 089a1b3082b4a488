// Texts for judging whether a clone's pace carries over to new words: a passage to clone from, rich in the
// pauses a reader makes at commas, semicolons and sentence ends, and ten sentences it does not contain, read
// one by one as a listener would hear them. Shared by the pace tests and the bench.

/** About 30 s of narration, broken by pauses every few words. */
export const PAUSE_RICH_PASSAGE =
  'When the storm finally passed, we walked down to the harbour. ' +
  'The boats were still there, tied to the posts, rocking gently; nobody had expected that. ' +
  'An old fisherman, sitting on a crate, waved at us. ' +
  'He told us, slowly and with great care, how the wind had turned at midnight. ' +
  'Then, without another word, he went back to mending his nets. ' +
  'We stayed a while, listening to the gulls, and watched the light come back over the water.';

/** Ten sentences the passage does not contain, each said without a pause. */
export const NEW_SENTENCES: readonly string[] = [
  'Please remember to lock the back door before you leave the house.',
  'The library opens at nine on weekdays and stays open late on Thursdays.',
  'My brother bought a red bicycle with a basket on the front.',
  'Most of the apples in the orchard were picked before the first frost.',
  'She wrote the address on a small card and handed it to the driver.',
  'The children painted pictures of their favourite animals at school today.',
  'A cup of tea tastes better when the water has only just boiled.',
  'The meeting was moved to the large room on the second floor.',
  'Our neighbours planted tomatoes, beans and sunflowers in their garden.',
  'The museum keeps a collection of maps that are more than three hundred years old.',
];
