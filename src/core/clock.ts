/**
 * Now, in milliseconds since the Unix epoch, on the clock every thread of the process
 * shares (performance.now() alone counts from each thread's own start): trajectories of
 * searches on two threads and spans of operators on a pool are compared on it.
 */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}
