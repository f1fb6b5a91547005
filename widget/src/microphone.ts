/**
 * The visitor's microphone for a voice call, or why there is none, as the words the panel says
 * before it offers typing: no secure context (browsers give no microphone there), no microphone
 * found, or the request refused.
 */
import type { StringKey } from "./strings.ts";

export async function openMicrophone(): Promise<MediaStream | StringKey> {
  if (!isSecureContext) return "insecure";
  if (navigator.mediaDevices?.getUserMedia === undefined) return "no_microphone";
  try {
    return await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    return name === "NotFoundError" || name === "OverconstrainedError"
      ? "no_microphone"
      : "microphone_refused";
  }
}

export function stopMicrophone(microphone: MediaStream | undefined): void {
  for (const track of microphone?.getTracks() ?? []) track.stop();
}
