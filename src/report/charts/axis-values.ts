/**
 * Axis values for a log scale over the data's [min, max]: powers of ten, with 2 and 5
 * times them where the data spans less than two decades, every multiple where it spans
 * less than one (vega's own log ticks label every power and grid every multiple, which
 * crowds the picture). Only values inside [min, max], which the padded scale shows.
 */
export function logTicks(min: number, max: number): number[] {
  const span = Math.log10(max / min);
  const multiples = span >= 2 ? [1] : span >= 0.7 ? [1, 2, 5] : [1, 2, 3, 4, 5, 6, 7, 8, 9];
  const ticks: number[] = [];
  for (let exponent = Math.floor(Math.log10(min)); exponent <= Math.ceil(Math.log10(max)); exponent++) {
    for (const multiple of multiples) {
      // Through a string, so that 0.1 * 3 style noise never reaches a label.
      const value = Number(`${multiple}e${exponent}`);
      if (value >= min * (1 - 1e-9) && value <= max * (1 + 1e-9)) ticks.push(value);
    }
  }
  return ticks;
}

/** Explicit log-axis values where there are at least two, else vega's own. */
export function logAxisValues(values: readonly number[]): { values?: number[] } {
  const ticks = logTicks(Math.min(...values), Math.max(...values));
  return ticks.length >= 2 ? { values: ticks } : {};
}

/** Where a ratio axis (footprint over a lower bound, from 1) may end: values its ticks (ratioTicks) land on. */
export const RATIO_CAPS = [1.05, 1.1, 1.2, 1.25, 1.5, 2, 2.5, 3, 4, 5, 7, 9, 13, 21, 51, 101];

/** Axis values for a ratio from 1: 1 and then steps that give at most six intervals (every cap is one). */
export function ratioTicks(top: number): number[] {
  const steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20];
  const step = steps.find((s) => (top - 1) / s <= 6 + 1e-9) ?? 50;
  const ticks: number[] = [];
  for (let k = 0; 1 + k * step <= top + 1e-9; k++) ticks.push(Number((1 + k * step).toFixed(2)));
  return ticks;
}

/** Where a ratio axis from 1 ends so that its last tick is its top: the first cap at or above `max`. */
export function ratioAxisEnd(max: number): number {
  return RATIO_CAPS.find((cap) => cap >= max) ?? Math.ceil(max);
}
