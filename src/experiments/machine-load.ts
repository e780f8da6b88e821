import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/**
 * How busy the machine was while a run timed something: a latency on a machine where other
 * programs ran is not the plan's latency. Recorded in run.json (`load`) for every run that
 * executes networks; a claim on latency is inconclusive where it says `busy`.
 */
export interface LoadRecord {
  /** The 1-minute load average when the timing started and when it ended. */
  readonly loadAverageBefore: number;
  readonly loadAverageAfter: number;
  /**
   * Cores' worth of CPU time that processes other than this run (and the processes it
   * waited for) used, on average, while it ran: from /proc/stat less this process tree's
   * own time. Absent where /proc is not there; then the load averages decide.
   */
  readonly otherCores?: number;
  readonly seconds: number;
  readonly busy: boolean;
  /** How `busy` was decided, in words. */
  readonly rule: string;
}

/** More than a quarter of a core used by others on average: enough to move a median by percents. */
export const BUSY_OTHER_CORES = 0.25;
/** Where only load averages are known: more runnable processes than this share of the cores, beyond our own one. */
const BUSY_LOAD_PER_CORE = 0.25;

/** Clock ticks of /proc (USER_HZ): 100 on every Linux the kernel's ABI keeps. */
const TICKS_PER_SECOND = 100;

interface Sample {
  readonly at: number;
  readonly busyTicks?: number;
  readonly ownTicks?: number;
}

/** Starts watching the machine's load; `stop` gives the record of the time between. */
export function watchLoad(): { stop(): LoadRecord } {
  const before = sample();
  const loadBefore = loadavg()[0];
  return {
    stop(): LoadRecord {
      const after = sample();
      const loadAfter = loadavg()[0];
      const seconds = (after.at - before.at) / 1000;
      const cores = availableParallelism();
      if (before.busyTicks !== undefined && after.busyTicks !== undefined && before.ownTicks !== undefined && after.ownTicks !== undefined && seconds > 0) {
        const other = Math.max(0, after.busyTicks - before.busyTicks - (after.ownTicks - before.ownTicks)) / TICKS_PER_SECOND / seconds;
        return {
          loadAverageBefore: loadBefore,
          loadAverageAfter: loadAfter,
          otherCores: round(other),
          seconds: round(seconds),
          busy: other > BUSY_OTHER_CORES,
          rule: `busy where other processes used more than ${BUSY_OTHER_CORES} of a core on average (/proc/stat less this run's own CPU time)`,
        };
      }
      // Our own timing adds one runnable process to the average after.
      const limit = BUSY_LOAD_PER_CORE * cores;
      return {
        loadAverageBefore: loadBefore,
        loadAverageAfter: loadAfter,
        seconds: round(seconds),
        busy: loadBefore > limit || loadAfter - 1 > limit,
        rule: `busy where the 1-minute load average, less this run's own process, passed ${limit.toFixed(2)} (${BUSY_LOAD_PER_CORE} per core)`,
      };
    },
  };
}

function sample(): Sample {
  const at = performance.now();
  try {
    // cpu  user nice system idle iowait irq softirq steal ...: busy is everything but idle and iowait.
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    const busyTicks = total - fields[3] - fields[4];
    // utime stime cutime cstime: fields 14-17 of /proc/self/stat, counted after the name's closing parenthesis.
    const own = readFileSync('/proc/self/stat', 'utf8');
    const rest = own
      .slice(own.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const ownTicks = rest[11] + rest[12] + rest[13] + rest[14];
    return Number.isFinite(busyTicks) && Number.isFinite(ownTicks) ? { at, busyTicks, ownTicks } : { at };
  } catch {
    return { at };
  }
}

const round = (value: number): number => Math.round(value * 1000) / 1000;
