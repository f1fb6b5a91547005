/**
 * A page that connects to OpenAI's Realtime API over WebRTC as the widget does (getUserMedia, an
 * RTCPeerConnection with the microphone's track and the `oai-events` channel, the SDP offer posted
 * to the calls endpoint with an ephemeral key), or without a microphone (`PageAudio`), for browser
 * tests of the calls stand-in. It answers each function call with `{called, with}` and a
 * `response.create`.
 */
import type { RealtimeEvent } from "./realtime-call.ts";

/** What the widget does, in plain script (functions tsx compiled would not run in the page). */
export const REALTIME_WIDGET_PAGE = `<!doctype html><title>widget</title><script>
window.events = [];
window.connect = async (url, token, audio = "microphone") => {
  const pc = new RTCPeerConnection();
  window.pc = pc;
  pc.ontrack = (e) => {
    const audio = new Audio();
    audio.srcObject = e.streams[0] || new MediaStream([e.track]);
    audio.play().catch(() => {});
  };
  if (audio === "microphone") {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    for (const track of stream.getTracks()) pc.addTrack(track, stream);
  } else if (audio === "receive") pc.addTransceiver("audio", { direction: "recvonly" });
  const dc = pc.createDataChannel("oai-events");
  window.dc = dc;
  dc.onmessage = (message) => {
    const event = JSON.parse(message.data);
    window.events.push(event);
    if (event.type !== "response.function_call_arguments.done") return;
    const output = JSON.stringify({ called: event.name, with: JSON.parse(event.arguments) });
    const item = { type: "function_call_output", call_id: event.call_id, output };
    dc.send(JSON.stringify({ type: "conversation.item.create", item }));
    dc.send(JSON.stringify({ type: "response.create" }));
  };
  await pc.setLocalDescription(await pc.createOffer());
  const response = await fetch(url, {
    method: "POST",
    body: pc.localDescription.sdp,
    headers: { authorization: "Bearer " + token, "content-type": "application/sdp" },
  });
  const answer = await response.text();
  if (response.status === 201) await pc.setRemoteDescription({ type: "answer", sdp: answer });
  return {
    status: response.status,
    location: response.headers.get("location"),
    contentType: response.headers.get("content-type"),
    refusal: response.status === 201 ? null : JSON.parse(answer),
  };
};
window.inboundAudioPackets = async () => {
  let packets = 0;
  (await window.pc.getStats()).forEach((s) => {
    if (s.type === "inbound-rtp" && s.kind === "audio") packets += s.packetsReceived;
  });
  return packets;
};
</script>`;

/** The page's globals; functions run in the page reach them through `window` alone. */
export interface WidgetPage {
  events: RealtimeEvent[];
  dc: RTCDataChannel;
  pc: RTCPeerConnection;
  connect(url: string, token: string, audio?: PageAudio): Promise<Connected>;
  inboundAudioPackets(): Promise<number>;
}

/**
 * `microphone`: the widget's voice call. `receive`: audio offered receive-only, no microphone
 * asked for (a text conversation). `none`: the data channel alone.
 */
export type PageAudio = "microphone" | "receive" | "none";

export interface Connected {
  status: number;
  location: string | null;
  contentType: string | null;
  /** OpenAI's error body when the offer was refused. */
  refusal: unknown;
}
