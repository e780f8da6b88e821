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
  readonly repetitions: number;
  readonly warmup: number;
  readonly seed: number;
  /** Offsets alignment in bytes (at least 16, the SIMD kernels' vectors). */
  readonly alignment: number;
  readonly quick: { readonly networks: readonly BudgetNetwork[]; readonly ablation: BudgetAblation; readonly repetitions: number; readonly warmup: number };
  readonly paper: PaperHeadline;
}

export interface BudgetNetwork {
  readonly label: string;
  readonly source: string;
  /** Budgets in MiB, as the issue lists FlexNN's. */
  readonly budgetsMiB: readonly number[];
}

/** FlexNN without preloading and without memory planning, on these networks (labels) at these budgets. */
export interface BudgetAblation {
  readonly networks: readonly string[];
  readonly budgetsMiB: readonly number[];
}

/** FlexNN's headline as published: memory saved against NCNN's default and latency added, on one network. */
export interface PaperHeadline {
  readonly citation: string;
  readonly device: string;
  readonly network: string;
  /** Fractions: 0.9381 is 93.81%. */
  readonly memorySaved: number;
  readonly latencyAdded: number;
}

const TOP = ['$comment', 'study', 'name', 'title', 'networks', 'ablation', 'repetitions', 'warmup', 'seed', 'alignment', 'quick', 'paper'];

export function parseFlexnnBudget(data: Record<string, unknown>, file: string): FlexnnBudgetConfig {
  const j = new JsonFields(file);
  j.only(data, TOP, '$');
  const mib = (value: unknown, path: string): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : j.fail(path, 'must be a number of MiB > 0.'));
  const networks = (value: unknown, path: string): BudgetNetwork[] => {
    const list = j.array(value, path).map((entry, k): BudgetNetwork => {
      const at = `${path}[${k}]`;
      const spec = j.object(entry, at);
      j.only(spec, ['label', 'source', 'budgetsMiB'], at);
      return {
        label: j.string(spec.label, `${at}.label`),
        source: j.string(spec.source, `${at}.source`),
        budgetsMiB: j.array(spec.budgetsMiB, `${at}.budgetsMiB`).map((b, i) => mib(b, `${at}.budgetsMiB[${i}]`)),
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
  const full = networks(data.networks, '$.networks');
  const quick = j.object(data.quick, '$.quick');
  j.only(quick, ['networks', 'ablation', 'repetitions', 'warmup'], '$.quick');
  const quickNetworks = networks(quick.networks, '$.quick.networks');
  const paper = j.object(data.paper, '$.paper');
  j.only(paper, ['citation', 'device', 'network', 'memorySaved', 'latencyAdded'], '$.paper');
  const fraction = (value: unknown, path: string): number => (typeof value === 'number' && value > -1 && value < 1 ? value : j.fail(path, 'must be a fraction between -1 and 1 (0.9381 is 93.81%).'));
  return {
    name: j.name(data.name, '$.name'),
    title: j.string(data.title, '$.title'),
    networks: full,
    ablation: ablation(data.ablation, '$.ablation', full),
    repetitions: j.integer(data.repetitions ?? 8, '$.repetitions', 1),
    warmup: j.integer(data.warmup ?? 4, '$.warmup', 0),
    seed: j.integer(data.seed ?? 1, '$.seed', 0),
    alignment: j.integer(data.alignment ?? 64, '$.alignment', 16),
    quick: {
      networks: quickNetworks,
      ablation: ablation(quick.ablation, '$.quick.ablation', quickNetworks),
      repetitions: j.integer(quick.repetitions ?? 2, '$.quick.repetitions', 1),
      warmup: j.integer(quick.warmup ?? 1, '$.quick.warmup', 0),
    },
    paper: {
      citation: j.string(paper.citation, '$.paper.citation'),
      device: j.string(paper.device, '$.paper.device'),
      network: j.string(paper.network, '$.paper.network'),
      memorySaved: fraction(paper.memorySaved, '$.paper.memorySaved'),
      latencyAdded: fraction(paper.latencyAdded, '$.paper.latencyAdded'),
    },
  };
}
