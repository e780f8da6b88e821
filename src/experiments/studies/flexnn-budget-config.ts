import { parseStorageBandwidth } from '../../io/storage-bandwidth.ts';
import type { StudyConfig } from '../study.ts';
import { type FlexnnBudgetFile, flexnnBudgetSchema } from './flexnn-budget-schema.ts';
import { checkFile, failIn } from '../file-check.ts';

/**
 * The file of the FlexNN budget study (experiments/flexnn-budget.json): networks and the
 * budgets FlexNN's evaluation runs them at (its Figure 10), the ablation (FlexNN without
 * preloading, without memory planning) at a few budgets, how many runs, a smaller variant
 * for `--quick`, and FlexNN's headline as published. Its shape is checked by its schema
 * (flexnn-budget-schema.ts); what one field says of another, here.
 */
export interface FlexnnBudgetConfig extends StudyConfig {
  readonly networks: readonly BudgetNetwork[];
  readonly ablation: BudgetAblation;
  /**
   * Sweep each network from its smallest feasible budget (FlexNN's planner, the whole run:
   * memplan plan --find-min-budget), found when the study runs, then up through the listed
   * budgets; the listed budgets below it stay in the sweep as infeasible cells.
   */
  readonly fromMinimum: boolean;
  /** The storage speeds every streamed method runs at: this machine's disk, and stated slower ones. */
  readonly storage: readonly StorageSpeed[];
  /** FlexNN's adaptation: the budget changed while inference runs, on these networks, through these budgets in order. */
  readonly adaptive?: AdaptiveRun;
  readonly repetitions: number;
  readonly warmup: number;
  readonly seed: number;
  /** Offsets alignment in bytes (at least 16, the SIMD kernels' vectors). */
  readonly alignment: number;
  readonly quick: { readonly networks: readonly BudgetNetwork[]; readonly ablation: BudgetAblation; readonly adaptive?: AdaptiveRun; readonly repetitions: number; readonly warmup: number };
  readonly paper: PaperHeadline;
}

export interface BudgetNetwork {
  readonly label: string;
  readonly source: string;
  /** Budgets in MiB, as the issue lists FlexNN's. */
  readonly budgetsMiB: readonly number[];
  /** Runs of this network where they differ from the study's (a network whose inference takes seconds here). */
  readonly repetitions?: number;
  readonly warmup?: number;
}

/** A storage the weights are read from: this machine's disk at its own speed, or a stated slower one. */
export interface StorageSpeed {
  readonly label: string;
  /** A stated read speed (io/storage-bandwidth.ts: `400MB` per second); absent: this machine's disk at its own speed. */
  readonly bandwidth?: string;
  /** Where a stated figure comes from. */
  readonly source?: string;
  /** The networks (labels) run from this storage; absent: every network. */
  readonly networks?: readonly string[];
}

/** A run whose budget changes between inferences (exec --budget B --adapt B1,B2,...), and FlexNN's figure for it. */
export interface AdaptiveRun {
  readonly networks: readonly string[];
  /** The first budget, then each it changes to (MiB). */
  readonly budgetsMiB: readonly number[];
  /** FlexNN's adaptation time (seconds) and where the figure comes from. */
  readonly paper?: { readonly adaptSeconds: number; readonly citation: string };
}

/** FlexNN without preloading and without memory planning, on these networks (labels) at these budgets. */
export interface BudgetAblation {
  readonly networks: readonly string[];
  readonly budgetsMiB: readonly number[];
}

/**
 * FlexNN's headline as published: memory saved against NCNN's default and latency added.
 * The source names the device class ("a smartphone") but no network: `network` only when a
 * source does.
 */
export interface PaperHeadline {
  readonly citation: string;
  readonly device: string;
  readonly network?: string;
  /** Fractions: 0.9381 is 93.81%. */
  readonly memorySaved: number;
  readonly latencyAdded: number;
}

export function parseFlexnnBudget(data: Record<string, unknown>, file: string): FlexnnBudgetConfig {
  const o = checkFile(flexnnBudgetSchema(), data, file);
  const fail = failIn(file);
  const distinct = (list: readonly { label: string }[], path: string): void => {
    if (new Set(list.map((x) => x.label)).size !== list.length) fail(path, 'every label must be different.');
  };
  const ofTheStudy = (names: readonly string[], path: string, among: readonly BudgetNetwork[]): string[] =>
    names.map((name, k) => {
      if (!among.some((x) => x.label === name)) fail(`${path}[${k}]`, `"${name}" is not the label of a network of the study.`);
      return name;
    });
  const ablation = (spec: FlexnnBudgetFile['ablation'], path: string, among: readonly BudgetNetwork[]): BudgetAblation => ({
    networks: ofTheStudy(spec.networks, `${path}.networks`, among),
    budgetsMiB: spec.budgetsMiB,
  });
  const adaptive = (spec: NonNullable<FlexnnBudgetFile['adaptive']>, path: string, among: readonly BudgetNetwork[]): AdaptiveRun => ({
    networks: ofTheStudy(spec.networks, `${path}.networks`, among),
    budgetsMiB: spec.budgetsMiB,
    ...(spec.paper ? { paper: spec.paper } : {}),
  });
  const storage = (list: NonNullable<FlexnnBudgetFile['storage']>, path: string, among: readonly BudgetNetwork[]): StorageSpeed[] => {
    const speeds = list.map((spec, k): StorageSpeed => {
      const at = `${path}[${k}]`;
      if (spec.bandwidth !== undefined) {
        try {
          parseStorageBandwidth(spec.bandwidth);
        } catch (error) {
          fail(`${at}.bandwidth`, (error as Error).message);
        }
        if (spec.source === undefined) fail(at, 'a stated speed needs its source: say where the figure comes from.');
      }
      return {
        label: spec.label,
        ...(spec.bandwidth === undefined ? {} : { bandwidth: spec.bandwidth }),
        ...(spec.source === undefined ? {} : { source: spec.source }),
        ...(spec.networks === undefined ? {} : { networks: ofTheStudy(spec.networks, `${at}.networks`, among) }),
      };
    });
    distinct(speeds, path);
    return speeds;
  };
  const full = o.networks;
  distinct(full, '$.networks');
  const quickNetworks = o.quick.networks;
  distinct(quickNetworks, '$.quick.networks');
  return {
    name: o.name,
    title: o.title,
    networks: full,
    ablation: ablation(o.ablation, '$.ablation', full),
    fromMinimum: o.fromMinimum ?? true,
    storage: o.storage === undefined ? [{ label: "this machine's disk" }] : storage(o.storage, '$.storage', [...full, ...quickNetworks]),
    ...(o.adaptive === undefined ? {} : { adaptive: adaptive(o.adaptive, '$.adaptive', full) }),
    repetitions: o.repetitions ?? 8,
    warmup: o.warmup ?? 4,
    seed: o.seed ?? 1,
    alignment: o.alignment ?? 64,
    quick: {
      networks: quickNetworks,
      ablation: ablation(o.quick.ablation, '$.quick.ablation', quickNetworks),
      ...(o.quick.adaptive === undefined ? {} : { adaptive: adaptive(o.quick.adaptive, '$.quick.adaptive', quickNetworks) }),
      repetitions: o.quick.repetitions ?? 2,
      warmup: o.quick.warmup ?? 1,
    },
    paper: o.paper,
  };
}
