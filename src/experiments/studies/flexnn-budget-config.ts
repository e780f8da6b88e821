import { parseStorageBandwidth } from '../../io/storage-bandwidth.ts';
import { JsonFields } from '../json-fields.ts';
import type { StudyConfig } from '../study.ts';

/**
 * The file of the FlexNN budget study (experiments/flexnn-budget.json): networks and the
 * budgets FlexNN's evaluation runs them at (its Figure 10), the ablation (FlexNN without
 * preloading, without memory planning) at a few budgets, how many runs, a smaller variant
 * for `--quick`, and FlexNN's headline as published.
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

const TOP = ['$comment', 'study', 'name', 'title', 'networks', 'ablation', 'fromMinimum', 'storage', 'adaptive', 'repetitions', 'warmup', 'seed', 'alignment', 'quick', 'paper'];

export function parseFlexnnBudget(data: Record<string, unknown>, file: string): FlexnnBudgetConfig {
  const j = new JsonFields(file);
  j.only(data, TOP, '$');
  const mib = (value: unknown, path: string): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : j.fail(path, 'must be a number of MiB > 0.'));
  const networks = (value: unknown, path: string): BudgetNetwork[] => {
    const list = j.array(value, path).map((entry, k): BudgetNetwork => {
      const at = `${path}[${k}]`;
      const spec = j.object(entry, at);
      j.only(spec, ['label', 'source', 'budgetsMiB', 'repetitions', 'warmup'], at);
      return {
        label: j.string(spec.label, `${at}.label`),
        source: j.string(spec.source, `${at}.source`),
        budgetsMiB: j.array(spec.budgetsMiB, `${at}.budgetsMiB`).map((b, i) => mib(b, `${at}.budgetsMiB[${i}]`)),
        ...(spec.repetitions === undefined ? {} : { repetitions: j.integer(spec.repetitions, `${at}.repetitions`, 1) }),
        ...(spec.warmup === undefined ? {} : { warmup: j.integer(spec.warmup, `${at}.warmup`, 0) }),
      };
    });
    if (new Set(list.map((n) => n.label)).size !== list.length) j.fail(path, 'every label must be different.');
    return list;
  };
  const ablation = (value: unknown, path: string, among: readonly BudgetNetwork[]): BudgetAblation => {
    const spec = j.object(value, path);
    j.only(spec, ['networks', 'budgetsMiB'], path);
    return {
      networks: j.array(spec.networks, `${path}.networks`).map((n, k) => {
        const label = j.string(n, `${path}.networks[${k}]`);
        if (!among.some((x) => x.label === label)) j.fail(`${path}.networks[${k}]`, `"${label}" is not the label of a network of the study.`);
        return label;
      }),
      budgetsMiB: j.array(spec.budgetsMiB, `${path}.budgetsMiB`).map((b, i) => mib(b, `${path}.budgetsMiB[${i}]`)),
    };
  };
  const storage = (value: unknown, path: string, among: readonly BudgetNetwork[]): StorageSpeed[] => {
    const list = j.array(value, path).map((entry, k): StorageSpeed => {
      const at = `${path}[${k}]`;
      const spec = j.object(entry, at);
      j.only(spec, ['label', 'bandwidth', 'source', 'networks'], at);
      let bandwidth: string | undefined;
      if (spec.bandwidth !== undefined) {
        bandwidth = j.string(spec.bandwidth, `${at}.bandwidth`);
        try {
          parseStorageBandwidth(bandwidth);
        } catch (error) {
          j.fail(`${at}.bandwidth`, (error as Error).message);
        }
        if (spec.source === undefined) j.fail(at, 'a stated speed needs its source: say where the figure comes from.');
      }
      return {
        label: j.string(spec.label, `${at}.label`),
        ...(bandwidth === undefined ? {} : { bandwidth }),
        ...(spec.source === undefined ? {} : { source: j.string(spec.source, `${at}.source`) }),
        ...(spec.networks === undefined
          ? {}
          : {
              networks: j.array(spec.networks, `${at}.networks`).map((n, k) => {
                const name = j.string(n, `${at}.networks[${k}]`);
                if (!among.some((x) => x.label === name)) j.fail(`${at}.networks[${k}]`, `"${name}" is not the label of a network of the study.`);
                return name;
              }),
            }),
      };
    });
    if (new Set(list.map((x) => x.label)).size !== list.length) j.fail(path, 'every label must be different.');
    return list;
  };
  const adaptive = (value: unknown, path: string, among: readonly BudgetNetwork[]): AdaptiveRun => {
    const spec = j.object(value, path);
    j.only(spec, ['networks', 'budgetsMiB', 'paper'], path);
    const budgetsMiB = j.array(spec.budgetsMiB, `${path}.budgetsMiB`).map((b, i) => mib(b, `${path}.budgetsMiB[${i}]`));
    if (budgetsMiB.length < 2) j.fail(`${path}.budgetsMiB`, 'needs a first budget and at least one to change to.');
    let paper: AdaptiveRun['paper'];
    if (spec.paper !== undefined) {
      const figure = j.object(spec.paper, `${path}.paper`);
      j.only(figure, ['adaptSeconds', 'citation'], `${path}.paper`);
      paper = { adaptSeconds: mib(figure.adaptSeconds, `${path}.paper.adaptSeconds`), citation: j.string(figure.citation, `${path}.paper.citation`) };
    }
    return {
      networks: j.array(spec.networks, `${path}.networks`).map((n, k) => {
        const label = j.string(n, `${path}.networks[${k}]`);
        if (!among.some((x) => x.label === label)) j.fail(`${path}.networks[${k}]`, `"${label}" is not the label of a network of the study.`);
        return label;
      }),
      budgetsMiB,
      ...(paper ? { paper } : {}),
    };
  };
  const full = networks(data.networks, '$.networks');
  const quick = j.object(data.quick, '$.quick');
  j.only(quick, ['networks', 'ablation', 'adaptive', 'repetitions', 'warmup'], '$.quick');
  const quickNetworks = networks(quick.networks, '$.quick.networks');
  const paper = j.object(data.paper, '$.paper');
  j.only(paper, ['citation', 'device', 'network', 'memorySaved', 'latencyAdded'], '$.paper');
  const fraction = (value: unknown, path: string): number => (typeof value === 'number' && value > -1 && value < 1 ? value : j.fail(path, 'must be a fraction between -1 and 1 (0.9381 is 93.81%).'));
  return {
    name: j.name(data.name, '$.name'),
    title: j.string(data.title, '$.title'),
    networks: full,
    ablation: ablation(data.ablation, '$.ablation', full),
    fromMinimum: data.fromMinimum === undefined ? true : j.boolean(data.fromMinimum, '$.fromMinimum'),
    storage: data.storage === undefined ? [{ label: "this machine's disk" }] : storage(data.storage, '$.storage', [...full, ...quickNetworks]),
    ...(data.adaptive === undefined ? {} : { adaptive: adaptive(data.adaptive, '$.adaptive', full) }),
    repetitions: j.integer(data.repetitions ?? 8, '$.repetitions', 1),
    warmup: j.integer(data.warmup ?? 4, '$.warmup', 0),
    seed: j.integer(data.seed ?? 1, '$.seed', 0),
    alignment: j.integer(data.alignment ?? 64, '$.alignment', 16),
    quick: {
      networks: quickNetworks,
      ablation: ablation(quick.ablation, '$.quick.ablation', quickNetworks),
      ...(quick.adaptive === undefined ? {} : { adaptive: adaptive(quick.adaptive, '$.quick.adaptive', quickNetworks) }),
      repetitions: j.integer(quick.repetitions ?? 2, '$.quick.repetitions', 1),
      warmup: j.integer(quick.warmup ?? 1, '$.quick.warmup', 0),
    },
    paper: {
      citation: j.string(paper.citation, '$.paper.citation'),
      device: j.string(paper.device, '$.paper.device'),
      ...(paper.network === undefined ? {} : { network: j.string(paper.network, '$.paper.network') }),
      memorySaved: fraction(paper.memorySaved, '$.paper.memorySaved'),
      latencyAdded: fraction(paper.latencyAdded, '$.paper.latencyAdded'),
    },
  };
}
