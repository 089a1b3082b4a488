// The start-up banner's line about natural voices: how many are loaded, or the one command that adds one.

export const ADD_VOICE_HINT = 'npx voxsmith voices add en_US-lessac-medium';

/**
 * The banner row: its label and text. With none loaded yet while VOICES_INSTALL downloads some (`installing`), it
 * says they are on their way rather than that there is none.
 */
export function naturalVoicesRow(count: number, installing: readonly string[] = []): [string, string] {
  if (count > 0) return ['Voices', `${count} natural voice${count === 1 ? '' : 's'} loaded (VOICES_DIR)`];
  if (installing.length > 0)
    return [
      'Voices',
      `installing ${installing.join(', ')} (VOICES_INSTALL): ${installing.length === 1 ? 'it speaks' : 'each speaks'} as soon as it has arrived; ` +
        `progress below and on the dashboard's Natural voices page`,
    ];
  return ['Voices', `no natural voice yet: add one with \`${ADD_VOICE_HINT}\` or on the dashboard's Natural voices page`];
}
