// The start-up banner's line about natural voices: how many are loaded, or the one command that adds one.

export const ADD_VOICE_HINT = 'npx voxsmith voices add en_US-lessac-medium';

/** The banner row: its label and text. */
export function naturalVoicesRow(count: number): [string, string] {
  return [
    'Voices',
    count > 0
      ? `${count} natural voice${count === 1 ? '' : 's'} loaded (VOICES_DIR)`
      : `no natural voice yet: add one with \`${ADD_VOICE_HINT}\` or on the dashboard's Natural voices page`,
  ];
}
