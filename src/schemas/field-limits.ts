// Bounds of the text fields a person types into the dashboard. Plain constants without TypeBox, so the
// dashboard imports them without the schemas (kilobytes of its bundle); the schemas and routes use the same.

/** A voice's name, cloned or bred. */
export const MAX_NAME_CHARS = 100;
/** A transcript of the longest sample (120 s) read at a brisk pace fits with room to spare. */
export const MAX_TRANSCRIPT_CHARS = 4000;
/** Voice search text (`q` of /api/voices/search, `search` of ElevenLabs' voice list). */
export const MAX_SEARCH_QUERY_CHARS = 200;
/** An API key's name. */
export const MAX_KEY_NAME_CHARS = 100;
