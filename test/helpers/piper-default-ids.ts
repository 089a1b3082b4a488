/** piper-phonemize's default phoneme_id_map (the one in every espeak Piper voice's .onnx.json), in id order from 0. */
export const PIPER_SYMBOLS = [
  ..."_^$ !'(),-.:;?abcdefhijklmnopqrstuvwxyzæçðøħŋœǀǁǂǃɐɑɒɓɔɕɖɗɘəɚɛɜɞɟɠɡɢɣɤɥɦɧɨɪɫɬɭɮɯɰɱɲɳɴɵɶɸɹɺɻɽɾʀʁʂʃʄʈʉʊʋʌʍʎʏʐʑʒʔʕʘʙʛʜʝʟʡʢʲˈˌːˑ˞βθχᵻⱱ0123456789",
  '\u0327',
  '\u0303',
  '\u032a',
  '\u032f',
  '\u0329',
  'ʰ',
  'ˤ',
  'ε',
  '↓',
  '#',
  '"',
  '↑',
  '\u033a',
  '\u033b',
  'g',
  'ʦ',
  'X',
  '\u031d',
  '\u030a',
];
export const PIPER_DEFAULT_ID_MAP: Record<string, number[]> = Object.fromEntries(PIPER_SYMBOLS.map((s, i) => [s, [i]]));
