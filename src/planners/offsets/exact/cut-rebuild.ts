import type { Budget } from './budget.ts';
import { splitAtCuts } from './decompose.ts';
import { FlatGroups } from './flat-groups.ts';
import { breadthToPlace } from './search-setup.ts';
import { mulberry32 } from '../../../core/synthetic.ts';
import { luby } from './parts.ts';
import type { PackingInstance } from './search-setup.ts';
import type { SearchOutcome } from './skyline-search.ts';

/**
 * Rebuilds a guillotine packing of a part with no slack: where the live bytes are the
 * same at every point (the capacity), a packing at the capacity is a rectangle filled
 * exactly, and if it was made by cuts through whole pieces (the planted `guillotine` and
 * `lanes` families), it can be found top down, piece by piece:
 *
 * - records live over the whole span of a piece go to its bottom (any packing can be
 *   rearranged so: move the record down, lift what was below it);
 * - a point no record of the piece crosses is a time cut: each side is a piece of the same
 *   height, solved on its own;
 * - otherwise the piece is a stack of full-span groups, each flat (its live bytes the same
 *   at every point) and each with a time cut of its own; flat-groups.ts finds one by
 *   constraint propagation, and the group and the rest are solved in turn.
 *
 * It only searches packings made of cuts, so failing proves nothing: it answers 'found'
 * or 'stopped', never 'infeasible'. Sets of records that failed as a piece are remembered
 * (a piece's records fix its span and height, so the failure holds wherever they recur).
 * `grain` divides every size (the part's grain, PartState.grain); heights count in grains.
 */
export function rebuildCut(instance: PackingInstance, grain: number, capacity: number, budget: Budget): SearchOutcome {
  if (instance.n === 0) return { status: 'found', offsets: new Float64Array(0), arena: 0 };
  const units = flatUnits(instance, grain, capacity);
  if (units === undefined) return STOPPED;
  return outcomeOf(rebuildPiece(instance, units, allRecords(instance), capacity / grain, budget), grain, capacity);
}

/** Every record of the instance, as the ids of one piece. */
function allRecords(instance: PackingInstance): number[] {
  return Array.from({ length: instance.n }, (_, k) => k);
}

/** A whole-instance packing in grains (or none) as the searches' outcome, in bytes. */
function outcomeOf(offsets: Float64Array | undefined, grain: number, capacity: number): SearchOutcome {
  return offsets === undefined ? STOPPED : { status: 'found', offsets: Float64Array.from(offsets, (y) => y * grain), arena: capacity };
}

/**
 * Sizes in grains when the instance has no slack at the capacity (every point's live bytes
 * equal it, no alignment padding, heights within what the tables afford); else undefined.
 */
export function flatUnits(instance: PackingInstance, grain: number, capacity: number): Int32Array | undefined {
  const { n, occupied, real } = instance;
  for (let k = 0; k < n; k++) if (occupied[k] !== real[k]) return undefined; // aligned sizes leave slack
  if (capacity % grain !== 0 || capacity / grain > MAX_UNITS) return undefined;
  const live = breadthToPlace(instance, capacity);
  if (live === undefined || live.some((bytes) => bytes !== capacity)) return undefined;
  return Int32Array.from(real, (s) => s / grain);
}

/**
 * Offsets (in grains, per record of the instance; only those of `ids` are set) of a cut
 * packing of `ids` as one piece: flat, `height` grains over the whole of the instance's
 * points; undefined when none is found within the budget.
 */
export function rebuildPiece(instance: PackingInstance, units: Int32Array, ids: readonly number[], height: number, budget: Budget): Float64Array | undefined {
  const { points, first, last } = instance;
  // The two searches of flat-groups.ts solve different instances: the first gets half the
  // nodes (at most FIRST_ONLY_NODES when the budget has no node limit), the second the rest.
  for (const firstOnly of [true, false]) {
    const share = Math.ceil(Math.min(budget.nodesLeft(), 2 * FIRST_ONLY_NODES) / 2);
    const offsets = new Rebuild(first, last, units, firstOnly ? budget.child(share) : budget, firstOnly).whole(ids, points, height);
    if (offsets !== undefined) return offsets;
    if (budget.spent()) break;
  }
  return undefined;
}

/**
 * Run `run` (1, 2, ...) of the rebuild's restarts (solve.ts's decide runs them between its
 * searches on parts of at most RESTARTS_UP_TO records flat at the capacity, improver.ts
 * one before each question on such parts at their bound): the choices of
 * flat-groups.ts drawn from `seed` and the run, its first-only search on odd runs and the
 * enumerating one on even runs, for RESTART_NODES times Luby's sequence at the run of
 * `budget`'s nodes. `units` are flatUnits(instance, grain, capacity). On the
 * planted guillotine cuts of 400 records, 15 s of restarts alone (1,000 nodes times Luby's
 * sequence) rebuilt 8 of seeds 1-8, 41 and 42 (4, 5, 6 and 42 among them, which the one
 * deterministic try does not in 200,000 nodes), and of 500 records 2 of 8 (5 and 42).
 */
export function restartRebuild(instance: PackingInstance, grain: number, units: Int32Array, capacity: number, budget: Budget, run: number, seed: number): SearchOutcome {
  const rebuild = new Rebuild(instance.first, instance.last, units, budget.child(RESTART_NODES * luby(run)), run % 2 === 1, mulberry32(seed * 0x10001 + run));
  return outcomeOf(rebuild.whole(allRecords(instance), instance.points, capacity / grain), grain, capacity);
}

/** Parts (and pieces) of at most this many records are rebuilt whole; flat-groups.ts's revisions on a thousand records take seconds per thousand nodes. */
export const REBUILD_UP_TO = 400;
/**
 * Parts of at most this many records get restartRebuild()'s runs. At 600 records the
 * restarts alone (45 s, seed 1) rebuilt 2 of seeds 1, 2, 41 and 42 (2 and 42, in 5.5 and
 * 9 s), and offsets/exact at 60 s proves seed 42 in 2 s (1.090x without; seed 2, which
 * its draws miss, ends at 1.094x as without); at 800 records none of the four in 45 s.
 */
export const RESTARTS_UP_TO = 600;
/** Nodes of restartRebuild()'s first run; later runs get this times Luby's sequence. */
const RESTART_NODES = 1000;

/** Heights (in grains) beyond which the subset-sum tables of flat-groups.ts cost too much. */
const MAX_UNITS = 4096;
const STOPPED: SearchOutcome = { status: 'stopped' };
const FIRST_ONLY_NODES = 8000;

/** Thrown through the recursion when the budget runs out. */
const OUT_OF_BUDGET = Symbol('out of budget');

class Rebuild {
  /** Offsets in grains. */
  readonly offsets: Float64Array;
  private readonly failed = new Set<string>();

  constructor(
    private readonly first: Int32Array,
    private readonly last: Int32Array,
    private readonly units: Int32Array,
    private readonly budget: Budget,
    /** Which search of flat-groups.ts to run. */
    private readonly firstOnly: boolean,
    /** Draws flat-groups.ts's choices (restartRebuild()); undefined: its fixed orders. */
    private readonly random?: () => number,
  ) {
    this.offsets = new Float64Array(units.length);
  }

  /** Offsets (in grains) of a cut packing of `ids` as one piece over points [0, points), `height` grains; undefined when none is found within the budget. */
  whole(ids: readonly number[], points: number, height: number): Float64Array | undefined {
    try {
      return this.piece(ids, 0, points, height, 0) ? this.offsets : undefined;
    } catch (e) {
      if (e !== OUT_OF_BUDGET) throw e;
      return undefined;
    }
  }

  tick(): void {
    if (!this.budget.tick()) throw OUT_OF_BUDGET;
  }

  /** Packs `ids` (flat, `height` grains over points [a, b)) from offset y; false when no cut packing exists. */
  piece(ids: readonly number[], a: number, b: number, height: number, y: number): boolean {
    this.tick();
    const { first, last, units } = this;
    if (ids.length === 1) {
      const k = ids[0];
      this.offsets[k] = y;
      return units[k] === height && first[k] === a && last[k] === b - 1;
    }
    const key =
      ids.length > 2
        ? ids
            .slice()
            .sort((p, q) => p - q)
            .join(',')
        : '';
    if (key !== '' && this.failed.has(key)) return false;
    const ok = this.solve(ids, a, b, height, y);
    if (!ok && key !== '') this.failed.add(key);
    return ok;
  }

  private solve(ids: readonly number[], a: number, b: number, height: number, y: number): boolean {
    const { first, last, units } = this;
    const rest: number[] = [];
    for (const k of ids) {
      if (first[k] === a && last[k] === b - 1) {
        this.offsets[k] = y;
        y += units[k];
        height -= units[k];
      } else {
        rest.push(k);
      }
    }
    if (height < 0) return false;
    if (rest.length === 0) return height === 0;
    // Each piece's records in time order (the order the searches of flat-groups.ts index them by).
    const spans = splitAtCuts(
      (i) => first[i],
      (i) => last[i],
      rest,
    ).map((ids) => {
      ids.sort((p, q) => first[p] - first[q] || p - q);
      return { ids, a: first[ids[0]], b: Math.max(...ids.map((i) => last[i])) + 1 };
    });
    if (spans.length > 1 || spans[0].a !== a || spans[0].b !== b) {
      // The pieces must tile [a, b): a gap would be a point of no breadth.
      if (spans[0].a !== a || spans[spans.length - 1].b !== b) return false;
      for (let i = 1; i < spans.length; i++) if (spans[i].a !== spans[i - 1].b) return false;
      return spans.every((s) => this.piece(s.ids, s.a, s.b, height, y));
    }
    const groups = new FlatGroups(rest, a, b, height, first, last, units, () => this.tick(), this.firstOnly, this.random);
    // Each flat group found: the smaller side first (a wrong group fails there soonest).
    return groups.each((group, others, g) =>
      group.length <= others.length ? this.piece(group, a, b, g, y) && this.piece(others, a, b, height - g, y + g) : this.piece(others, a, b, height - g, y + g) && this.piece(group, a, b, g, y),
    );
  }
}
