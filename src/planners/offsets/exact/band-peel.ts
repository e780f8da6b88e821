import type { Budget } from './budget.ts';
import { flatUnits, REBUILD_UP_TO, rebuildPiece } from './cut-rebuild.ts';
import { eachFlatGroup } from './flat-sweep.ts';
import type { PackingInstance } from './search-setup.ts';

/** What peelBands leaves: the bands it packed, and the records above them. */
export interface PeeledBands {
  /** Offsets (bytes) of the peeled records, per record of the instance; 0 for the rest. */
  readonly offsets: Float64Array;
  /** Records (instance indices) not peeled, to be packed from `restBase` up. */
  readonly rest: number[];
  /** Bytes the bands take, from the floor. */
  readonly restBase: number;
}

/**
 * Bands peeled off the bottom of a part with no slack at the capacity (cut-rebuild.ts's
 * rectangles, too large for it to rebuild whole): records live over every point first,
 * then, again and again, the thinnest flat group with a time cut that flat-sweep.ts finds
 * and cut-rebuild.ts packs as a band of its own, never undone. What is left when no band
 * is found (or the budget ends) is the rest, for a search to pack above the bands.
 *
 * A heuristic for the best packing found, not a proof: a group taken as a band may hold
 * records that the optimum packs elsewhere, and then the rest packs higher than its live
 * bytes. On the planted `lanes` cuts of 1000 records it peels 70 to 80% of the height in
 * under half a second, and the rest, a fifth of the records, packs within a few grains of
 * its bound. Undefined when the part is not flat at the capacity.
 */
export function peelBands(instance: PackingInstance, grain: number, capacity: number, budget: Budget): PeeledBands | undefined {
  const units = flatUnits(instance, grain, capacity);
  if (units === undefined) return undefined;
  const { n, points, first, last } = instance;
  const offsets = new Float64Array(n);
  // Records live over every point go to the bottom (decompose.ts has stacked them already
  // unless the alignment is above 1); what is left never gains such a record.
  const wholeSpan = (k: number): boolean => first[k] === 0 && last[k] === points - 1;
  let y = 0;
  for (let k = 0; k < n; k++) {
    if (!wholeSpan(k)) continue;
    offsets[k] = y * grain;
    y += units[k];
  }
  let height = capacity / grain - y;
  let ids = Array.from({ length: n }, (_, k) => k).filter((k) => !wholeSpan(k));
  while (ids.length > 0 && !budget.spent()) {
    let band: { group: number[]; g: number } | undefined;
    // A level that finds no band in LEVEL_NODES ends the peel (the rest is not made of bands).
    const level = budget.child(LEVEL_NODES);
    for (let g = 1; 2 * g <= height && band === undefined && !level.spent(); g++) {
      const sweep = level.child(SWEEP_NODES);
      const tick = (): void => {
        if (!sweep.tick()) throw OUT_OF_BUDGET;
      };
      try {
        eachFlatGroup(ids, 0, points, g, first, last, units, tick, (group) => {
          const packed = rebuildPiece(instance, units, group, g, level.child(BAND_NODES));
          if (packed === undefined) return false;
          for (const k of group) offsets[k] = (y + packed[k]) * grain;
          band = { group, g };
          return true;
        });
      } catch (e) {
        if (e !== OUT_OF_BUDGET) throw e;
      }
    }
    if (band === undefined) {
      // No thin band: the rest may still be one piece, if small enough for cut-rebuild.ts.
      const packed = ids.length <= REBUILD_UP_TO ? rebuildPiece(instance, units, ids, height, budget.child(BAND_NODES)) : undefined;
      if (packed !== undefined) {
        for (const k of ids) offsets[k] = (y + packed[k]) * grain;
        y += height;
        ids = [];
      }
      break;
    }
    const taken = new Set(band.group);
    ids = ids.filter((k) => !taken.has(k));
    y += band.g;
    height -= band.g;
  }
  return { offsets, rest: ids, restBase: y * grain };
}

/** Nodes of one sweep (one height g): about 0.1 s at 1000 records on a 2-core EPYC. */
const SWEEP_NODES = 20_000;
/** Nodes to find one band (sweeps and rebuilds): the planted lanes take a few thousand. */
const LEVEL_NODES = 50_000;
/** Nodes for cut-rebuild.ts to pack one band. */
const BAND_NODES = 20_000;

const OUT_OF_BUDGET = Symbol('out of budget');
