/**
 * The media side of the Realtime calls stand-in: a libdatachannel peer (node-datachannel) that
 * answers a browser's SDP offer as OpenAI's WebRTC endpoint does (GA Realtime API, "Realtime API
 * with WebRTC"): it accepts the offer's audio m-line, with Opus at the offered payload type, and
 * its data channel m-line, and takes the `oai-events` channel the browser opens. The answer
 * carries all of its ICE candidates (the endpoint does not trickle) and is bound to 127.0.0.1.
 *
 * While the call is open it plays a steady stream of Opus silence to the browser, one RTP packet
 * every 20 ms with the SSRC declared in the answer, and it counts the RTP packets the browser's
 * microphone sends.
 */
import { randomInt } from "node:crypto";
import nodeDataChannel, {
  type DataChannel,
  type Direction,
  type PeerConnection,
} from "node-datachannel";

/** The label of the channel OpenAI's Realtime API exchanges JSON events on. */
export const EVENTS_CHANNEL = "oai-events";

/**
 * A body that cannot be answered as an SDP offer; its message is the one to send back, with
 * OpenAI's code `invalid_offer`.
 */
export class NotAnOffer extends Error {}

export interface RealtimePeer {
  /** The SDP answer, with the peer's candidates. */
  answer: string;
  /** Resolves when the `oai-events` channel is open; rejects if the call ends first. */
  opened: Promise<void>;
  /** Resolves once the call ended (the connection failed or closed, or the events channel
   * closed, or `close`) and its native resources are freed. */
  closed: Promise<void>;
  /** Called with each text message on the events channel, in order. */
  onMessage(listener: (text: string) => void): void;
  /** Sends a text message on the events channel; false when it is not open. */
  send(text: string): boolean;
  audioPacketsSent(): number;
  audioPacketsReceived(): number;
  /** Ends the call and frees its native resources. */
  close(): void;
}

interface OfferedAudio {
  mid: string;
  payloadType: number;
  direction: Direction;
}

/** The answer's direction for each direction the browser offers. */
const ANSWERED_DIRECTION: Record<string, Direction> = {
  sendrecv: "SendRecv",
  recvonly: "SendOnly",
  sendonly: "RecvOnly",
  inactive: "Inactive",
};
const FRAME_MS = 20;
/** 20 ms at Opus's 48 kHz RTP clock. */
const FRAME_TICKS = 960;
/** An Opus packet of 20 ms of silence (TOC 0xF8: CELT fullband, 20 ms, one frame). */
const OPUS_SILENCE = Buffer.from([0xf8, 0xff, 0xfe]);
const GATHERING_LIMIT_MS = 5000;

/** The peers not yet closed: libdatachannel's threads are stopped when the last one goes. */
const live = new Set<RealtimePeer>();

export async function answerOffer(offer: string): Promise<RealtimePeer> {
  const audio = readOffer(offer);
  const pc = new nodeDataChannel.PeerConnection("openai-standin", {
    iceServers: [],
    bindAddress: "127.0.0.1",
  });
  const { track, rtp } = addAudioTrack(pc, audio);
  let received = 0;
  track.onMessage((packet) => {
    if (isRtp(packet)) received++;
  });
  const listeners: ((text: string) => void)[] = [];
  let channel: DataChannel | undefined;
  let ended = false;

  let open!: () => void;
  let failOpen!: (error: Error) => void;
  const opened = new Promise<void>((resolve, reject) => ((open = resolve), (failOpen = reject)));
  opened.catch(() => undefined);
  let end!: () => void;
  const closed = new Promise<void>((resolve) => (end = resolve));

  const timer = setInterval(() => {
    try {
      if (track.isOpen() && track.sendMessageBinary(rtp.next())) rtp.sent++;
    } catch {
      // The track closed between the check and the send (libdatachannel's own thread): the
      // browser hung up, which the peer's close handlers report.
    }
  }, FRAME_MS);

  const finish = () => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    failOpen(new Error("the call ended before its events channel opened"));
    // Deferred: this may run inside a libdatachannel callback, and closing from there (or the
    // cleanup, which joins libdatachannel's threads) is not safe.
    setImmediate(() => {
      release(peer, () => {
        channel?.close();
        track.close();
        pc.close();
      });
      end();
    });
  };

  pc.onStateChange((state) => {
    if (state === "closed" || state === "failed") finish();
  });
  pc.onDataChannel((dc) => {
    if (dc.getLabel() !== EVENTS_CHANNEL) return;
    channel = dc;
    dc.onOpen(open);
    dc.onClosed(finish);
    dc.onMessage((message) => {
      if (typeof message === "string") listeners.forEach((listener) => listener(message));
    });
  });

  const peer: RealtimePeer = {
    answer: "",
    opened,
    closed,
    onMessage: (listener) => listeners.push(listener),
    send: (text) => channel?.isOpen() === true && channel.sendMessage(text),
    audioPacketsSent: () => rtp.sent,
    audioPacketsReceived: () => received,
    close: finish,
  };
  live.add(peer);

  try {
    pc.setRemoteDescription(offer, "offer");
  } catch (error) {
    finish();
    throw new NotAnOffer(`Invalid SDP offer: ${(error as Error).message}`);
  }
  peer.answer = await gathered(pc);
  return peer;
}

/**
 * The answer's audio track, added before the offer is set: libdatachannel matches it to the
 * offer's m-line by mid. Without it, it answers with a copy of the browser's own media section
 * (the browser's msid, every offered codec) and no SSRC to send with.
 */
function addAudioTrack(pc: PeerConnection, audio: OfferedAudio) {
  const ssrc = randomInt(1, 2 ** 32 - 1);
  const description = new nodeDataChannel.Audio(audio.mid, audio.direction);
  description.addOpusCodec(audio.payloadType);
  description.addSSRC(ssrc, "openai-standin", "realtime", "realtime-audio");
  return { track: pc.addTrack(description), rtp: new OpusSilence(ssrc, audio.payloadType) };
}

/** The offer's audio m-line, checked: an audio m-line with Opus and a data channel m-line. */
function readOffer(sdp: string): OfferedAudio {
  if (!/^v=0\r?\n/.test(sdp)) throw new NotAnOffer("Invalid SDP offer: the body is not SDP.");
  const sections = sdp.split(/\r?\n(?=m=)/);
  const audio = sections.find((section) => section.startsWith("m=audio "));
  // OpenAI's own words for an offer with a data channel alone (a page without a microphone must
  // still offer audio, receive-only).
  if (audio === undefined) {
    throw new NotAnOffer("Invalid SDP offer. Offer did not have an audio media section.");
  }
  if (!sections.some((section) => section.startsWith("m=application "))) {
    throw new NotAnOffer("Invalid SDP offer: it has no data channel (m=application) section.");
  }
  const opus = /^a=rtpmap:(\d+) opus\/48000/im.exec(audio);
  const mid = /^a=mid:(\S+)/m.exec(audio);
  if (!opus || !mid) {
    throw new NotAnOffer("Invalid SDP offer: it has no audio (m=audio) section with Opus.");
  }
  const direction = /^a=(sendrecv|recvonly|sendonly|inactive)\b/m.exec(audio);
  return {
    mid: mid[1] as string,
    payloadType: Number(opus[1]),
    direction: ANSWERED_DIRECTION[direction?.[1] ?? "sendrecv"] as Direction,
  };
}

/** The local description once every candidate is in it (or as it stands after a while). */
function gathered(pc: PeerConnection): Promise<string> {
  return new Promise((resolve) => {
    const take = () => {
      clearTimeout(limit);
      resolve(pc.localDescription()?.sdp ?? "");
    };
    const limit = setTimeout(take, GATHERING_LIMIT_MS);
    if (pc.gatheringState() === "complete") take();
    else pc.onGatheringStateChange((state) => state === "complete" && take());
  });
}

function release(peer: RealtimePeer, closeAll: () => void): void {
  if (!live.delete(peer)) return;
  closeAll();
  if (live.size === 0) nodeDataChannel.cleanup();
}

/** RTP version 2, and not RTCP (payload types 192 to 223 once muxed, RFC 5761). */
function isRtp(packet: Buffer): boolean {
  const type = packet[1] ?? 0;
  return packet.length >= 12 && (packet[0] ?? 0) >> 6 === 2 && (type < 192 || type > 223);
}

/** Consecutive RTP packets of Opus silence for one SSRC. */
class OpusSilence {
  sent = 0;
  #sequence = randomInt(0, 2 ** 16);
  #timestamp = randomInt(0, 2 ** 32 - 1);

  constructor(
    readonly ssrc: number,
    readonly payloadType: number,
  ) {}

  next(): Buffer {
    const packet = Buffer.alloc(12 + OPUS_SILENCE.length);
    packet[0] = 0x80; // version 2, no padding, no extension, no CSRC
    packet[1] = this.payloadType & 0x7f;
    packet.writeUInt16BE(this.#sequence, 2);
    packet.writeUInt32BE(this.#timestamp, 4);
    packet.writeUInt32BE(this.ssrc, 8);
    OPUS_SILENCE.copy(packet, 12);
    this.#sequence = (this.#sequence + 1) % 2 ** 16;
    this.#timestamp = (this.#timestamp + FRAME_TICKS) % 2 ** 32;
    return packet;
  }
}
