import { parseByteSize } from './byte-size.ts';

/**
 * A storage device's read speed, stated so that a run on this machine's fast disk can stand
 * in for a slower one (a phone's flash, a board's eMMC): `--storage-bandwidth 150MB` (per
 * second; `/s` may be written). Reads are throttled to it, never sped up: a read that the
 * real disk serves slower than the stated rate takes as long as it takes.
 */
export interface StorageBandwidth {
  readonly bytesPerSecond: number;
  /** As the user wrote it, for reports: `150MB/s`. */
  readonly label: string;
}

/** `150MB`, `150MB/s`, `1.5GiB/s`, `2000000` (bytes per second). Throws a RangeError naming the value and the accepted forms. */
export function parseStorageBandwidth(text: string | number): StorageBandwidth {
  const value = String(text).trim();
  const size = value.replace(/\s*\/\s*s$/i, '');
  let bytesPerSecond: number;
  try {
    bytesPerSecond = parseByteSize(size);
  } catch {
    throw new RangeError(`"${value}" is not a read speed; write bytes per second with KB, MB, GB, KiB, MiB or GiB (e.g. 150MB or 150MB/s).`);
  }
  if (bytesPerSecond <= 0) throw new RangeError(`"${value}" is not a read speed: it must be more than 0 bytes per second.`);
  return { bytesPerSecond, label: `${size.replace(/\s+/g, '')}/s` };
}

/**
 * When a read of `bytes` begun at `startMs` may be taken as finished at the stated speed: a
 * device that serves `bytesPerSecond` takes bytes / rate for it. One read at a time (the
 * readers here read one tile or one weight slice after another), so the device is never
 * busy with an earlier read when the next begins.
 */
export function readDueMs(startMs: number, bytes: number, bandwidth: StorageBandwidth): number {
  return startMs + (bytes * 1000) / bandwidth.bytesPerSecond;
}
