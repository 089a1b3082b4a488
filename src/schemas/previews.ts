// The fixed lines dashboard previews speak, one per language. Pure data shared by the server (the preview
// route speaks only these, so previews cannot be used as free synthesis) and the dashboard.
// A short line per language (primary subtag), so each voice is heard speaking its own language.
// No prototype: a language from the request (`?language=constructor`) finds no line rather than Object's own members.
export const PREVIEW_LINES: Readonly<Record<string, string | undefined>> = Object.assign(Object.create(null) as Record<string, string>, {
  en: 'Hello! This is how I sound. The quick brown fox jumps over the lazy dog.',
  de: 'Hallo! So klingt meine Stimme. Heute ist ein schöner Tag.',
  fr: 'Bonjour ! Voici ma voix. Il fait beau aujourd’hui.',
  es: '¡Hola! Así suena mi voz. Hoy hace un día precioso.',
  it: 'Ciao! Questa è la mia voce. Oggi è una bella giornata.',
  pt: 'Olá! Esta é a minha voz. Hoje está um dia bonito.',
  nl: 'Hallo! Zo klinkt mijn stem. Het is vandaag een mooie dag.',
  sv: 'Hej! Så här låter min röst. Det är en fin dag i dag.',
  da: 'Hej! Sådan lyder min stemme. Det er en dejlig dag i dag.',
  nb: 'Hei! Slik høres stemmen min ut. Det er en fin dag i dag.',
  no: 'Hei! Slik høres stemmen min ut. Det er en fin dag i dag.',
  fi: 'Hei! Tältä ääneni kuulostaa. Tänään on kaunis päivä.',
  is: 'Halló! Svona hljómar röddin mín.',
  pl: 'Cześć! Tak brzmi mój głos. Dziś jest piękny dzień.',
  cs: 'Ahoj! Takhle zní můj hlas. Dnes je krásný den.',
  sk: 'Ahoj! Takto znie môj hlas. Dnes je krásny deň.',
  sl: 'Živjo! Tako zveni moj glas.',
  hr: 'Bok! Ovako zvuči moj glas.',
  bs: 'Zdravo! Ovako zvuči moj glas.',
  sr: 'Здраво! Овако звучи мој глас.',
  ru: 'Привет! Так звучит мой голос. Сегодня прекрасный день.',
  uk: 'Привіт! Так звучить мій голос. Сьогодні чудовий день.',
  be: 'Прывітанне! Так гучыць мой голас.',
  bg: 'Здравей! Така звучи моят глас.',
  mk: 'Здраво! Вака звучи мојот глас.',
  el: 'Γεια σας! Έτσι ακούγεται η φωνή μου.',
  ro: 'Bună! Așa sună vocea mea. Astăzi este o zi frumoasă.',
  hu: 'Szia! Így szól a hangom. Ma szép nap van.',
  et: 'Tere! Nii kõlab minu hääl.',
  lv: 'Sveiki! Tā skan mana balss.',
  lt: 'Labas! Taip skamba mano balsas.',
  tr: 'Merhaba! Sesim böyle çıkıyor. Bugün güzel bir gün.',
  ca: 'Hola! Així sona la meva veu. Avui fa un dia preciós.',
  eu: 'Kaixo! Horrela entzuten da nire ahotsa.',
  cy: 'Helo! Dyma sut mae fy llais yn swnio.',
  ga: 'Dia duit! Seo mar a fhuaimníonn mo ghuth.',
  eo: 'Saluton! Jen kiel sonas mia voĉo.',
  la: 'Salve! Haec est vox mea.',
  af: 'Hallo! So klink my stem. Dit is vandag ’n mooi dag.',
  sw: 'Habari! Hivi ndivyo sauti yangu inavyosikika.',
  id: 'Halo! Beginilah suara saya. Hari ini cuacanya indah.',
  ms: 'Helo! Beginilah bunyi suara saya.',
  vi: 'Xin chào! Đây là giọng nói của tôi.',
  ar: 'مرحبا! هكذا يبدو صوتي.',
  he: 'שלום! כך נשמע הקול שלי.',
  fa: 'سلام! صدای من این‌طور است.',
  hi: 'नमस्ते! मेरी आवाज़ ऐसी सुनाई देती है।',
  ur: 'سلام! میری آواز ایسی سنائی دیتی ہے۔',
  bn: 'নমস্কার! আমার কণ্ঠস্বর এরকম শোনায়।',
  ja: 'こんにちは！これが私の声です。',
  ko: '안녕하세요! 이것이 제 목소리입니다.',
  cmn: '你好！这是我的声音。今天天气很好。',
  yue: '你好！呢個係我嘅聲音。',
  th: 'สวัสดี! นี่คือเสียงของฉัน',
  ka: 'გამარჯობა! ასე ჟღერს ჩემი ხმა.',
  hy: 'Բարև! Այսպես է հնչում իմ ձայնը։',
  ta: 'வணக்கம்! இது என் குரல்.',
});

/**
 * The preview text for a voice. Languages without a line here count to five instead: every engine reads
 * digits in its own language, so the preview is still that language and not English with an accent.
 */
export function previewText(voice: { language: string }): string {
  const tag = voice.language.toLowerCase();
  const primary = tag.split('-')[0];
  if (tag.endsWith('-latn')) return '1, 2, 3, 4, 5.';
  return PREVIEW_LINES[primary] ?? '1, 2, 3, 4, 5.';
}
