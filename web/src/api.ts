// The dashboard talks to the service through the SDK in client/, on the session cookie: same origin, no key
// (the browser sends the cookie and the Origin the service checks on writes).
import { VoxsmithClient } from '../../client/index.ts';

export { VoxsmithError } from '../../client/index.ts';

export const api = new VoxsmithClient({ baseUrl: window.location.origin, credentials: 'same-origin' });

/** A spoken result as a Blob with the service's content type, for an <audio> element or a download link. */
export async function speakBlob(request: Parameters<VoxsmithClient['speak']>[0], signal?: AbortSignal): Promise<Blob> {
  const speech = await api.speak(request, { signal });
  return new Blob([speech.audio as Uint8Array<ArrayBuffer>], { type: speech.contentType });
}

/** A voice's preview line from the server's preview route (session only, cached there, not billed). */
export async function previewBlob(voiceId: string, language: string, signal?: AbortSignal): Promise<Blob> {
  const speech = await api.previewVoice(voiceId, { language, signal });
  return new Blob([speech.audio as Uint8Array<ArrayBuffer>], { type: speech.contentType });
}
