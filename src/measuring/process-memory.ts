import { readFileSync, writeFileSync } from 'node:fs';

/** The resident memory of this process, and its peak since the last reset (bytes). */
export interface RssReading {
  readonly rss: number;
  readonly peakRss: number;
  /** How the peak was read: Linux's VmHWM after a reset, or the best this platform offers. */
  readonly method: string;
}

const STATUS = '/proc/self/status';

function statusField(status: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}

let resetWorked = false;

/**
 * Starts a new peak: on Linux, writing 5 to /proc/self/clear_refs sets VmHWM to the current
 * resident size. Elsewhere (or where the write is refused) the peak stays the process's
 * peak since start, which `readRss().method` then says.
 */
export function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    resetWorked = true;
  } catch {
    resetWorked = false;
  }
}

export function readRss(): RssReading {
  try {
    const status = readFileSync(STATUS, 'utf8');
    const rss = statusField(status, 'VmRSS');
    const peak = statusField(status, 'VmHWM');
    if (rss !== undefined && peak !== undefined) {
      return {
        rss,
        peakRss: peak,
        method: resetWorked ? 'VmHWM of /proc/self/status, reset by /proc/self/clear_refs before the network was touched' : 'VmHWM of /proc/self/status since the process started (clear_refs refused)',
      };
    }
  } catch {
    // Not Linux: fall through.
  }
  return { rss: process.memoryUsage.rss(), peakRss: process.resourceUsage().maxRSS * 1024, method: 'getrusage maxrss since the process started (no /proc on this platform)' };
}

/**
 * The resident bytes once the collector is done: V8 returns freed pages from a background
 * thread a moment after a collection, so a reading right after one may or may not hold them
 * (measured: 3 MiB moving between the baseline and the job's peak from run to run). Collects
 * and reads again until two readings agree within 64 KiB (at most 20 times, 25 ms apart).
 */
export async function settledRss(collect: () => void): Promise<number> {
  let last = Number.NaN;
  for (let k = 0; k < 20; k++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 25));
    const rss = readRss().rss;
    if (Math.abs(rss - last) < 64 * 1024) return rss;
    last = rss;
  }
  return last;
}
