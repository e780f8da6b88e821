/** An experiment's or a command line's planner: a registry id, or a module of one's own. */
export interface PlannerEntry {
  /** A registry id, or the path of a module exporting a planner (relative to the experiment file). */
  readonly ref: string;
  readonly module: boolean;
  /** A module's path as the experiment file names it (not resolved), the same on every machine (shards.ts). */
  readonly named?: string;
}

/** A planner reference that names a module (a path ending in .ts, .mts, .js or .mjs), not a registry id. */
export function isPlannerModule(ref: string): boolean {
  return /\.(m?[jt]s)$/.test(ref);
}
