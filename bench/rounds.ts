/**
 * How every benchmark runs once its sides are up: a warm-up per side (JIT, pools, caches; not
 * recorded, but its errors count), then `rounds` rounds of bare, express, service in turn, so no
 * side always runs on a warmer or quieter machine. Every run sends the same pre-made requests
 * from the same wrk script, inside a start/stop window of the side under load (sides.ts).
 */
import { runWrk, writeWrkScript, type WrkLoad, type WrkResult } from "./wrk.ts";
import { SIDE_NAMES, type Side, type SideName, type Window } from "./sides.ts";

export interface BenchSettings {
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  concurrency: number;
  /** Sites the query benchmark spreads over. */
  siteCount: number;
}

/** A benchmark whose sides are up and whose requests are made. */
export interface Prepared {
  sides: Record<SideName, Side>;
  load: WrkLoad;
  /** What was set up, in a few words for the report. */
  about: string;
  /** Closes the sides and whatever else the benchmark started. */
  close(): Promise<void>;
}

export interface Run {
  /** 0 for the warm-up. */
  round: number;
  side: SideName;
  wrk: WrkResult;
  window: Window;
}

async function measure(
  side: Side,
  round: number,
  scriptFile: string,
  seconds: number,
  connections: number,
): Promise<Run> {
  await side.start();
  const wrk = await runWrk(side.origin, scriptFile, { seconds, connections });
  const window = await side.stop();
  return { round, side: side.name, wrk, window };
}

/** The warm-ups, then every round's runs, in the order they ran. */
export async function runRounds(
  prepared: Prepared,
  settings: BenchSettings,
  dir: string,
): Promise<Run[]> {
  const scriptFile = writeWrkScript(prepared.load, dir);
  const runs: Run[] = [];
  for (const name of SIDE_NAMES) {
    const side = prepared.sides[name];
    runs.push(await measure(side, 0, scriptFile, settings.warmupSeconds, settings.concurrency));
  }
  for (let round = 1; round <= settings.rounds; round++) {
    for (const name of SIDE_NAMES) {
      const side = prepared.sides[name];
      runs.push(await measure(side, round, scriptFile, settings.seconds, settings.concurrency));
    }
  }
  return runs;
}
