import type { CellResult } from '../experiments/result.ts';

/** The paper's claims 1-8 (see the digest), each decided on our numbers, never assumed. */
export interface ClaimVerdict {
  readonly id: number;
  readonly claim: string;
  readonly verdict: 'holds' | 'does not hold' | 'pending';
  /** The figures that decide it. */
  readonly evidence: string;
}

export interface ClaimInputs {
  /** Table 1 (shared objects) cells. */
  readonly sharedObjects: readonly CellResult[];
  /** Table 2 (offsets) cells. */
  readonly offsets: readonly CellResult[];
  /** Cells of an executing backend (latency inside each plan), when one has run. */
  readonly latency?: readonly CellResult[];
}

/** How far below a published "up to" figure ours may fall and still count as the same finding. */
export const TOLERANCE = { percentagePoints: 2, times: 0.5 } as const;
/** "A few milliseconds": the median planning time we accept as that. */
export const FEW_MILLISECONDS = 10;

const PAPER_SO = ['shared-objects/greedy-by-breadth', 'shared-objects/greedy-by-size', 'shared-objects/greedy-by-size-improved'];
const PRIOR_SO = ['shared-objects/greedy-in-order', 'shared-objects/min-cost-flow'];
const PAPER_OFFSETS = ['offsets/greedy-by-size', 'offsets/greedy-by-breadth'];
const MIB = 2 ** 20;

class Cells {
  constructor(private readonly cells: readonly CellResult[]) {}
  get models(): string[] {
    return [...new Set(this.cells.map((c) => c.model))];
  }
  label(model: string): string {
    return this.cells.find((c) => c.model === model)?.modelLabel ?? model;
  }
  footprint(planner: string, model: string): number | undefined {
    return this.cells.find((c) => c.planner === planner && c.model === model)?.footprint;
  }
  /** The smallest footprint among these planners, and who reaches it. */
  best(planners: readonly string[], model: string): { footprint: number; planners: string[] } {
    const found = this.cells.filter((c) => c.model === model && planners.includes(c.planner));
    const footprint = Math.min(...found.map((c) => c.footprint));
    return { footprint, planners: found.filter((c) => c.footprint === footprint).map((c) => c.plannerTitle) };
  }
  /** The strategies the claims compare: exact planners (cells with a claim) are the yardstick, not one of them. */
  strategies(): string[] {
    return [...new Set(this.cells.filter((c) => c.optimal === undefined).map((c) => c.planner))].filter((p) => !p.endsWith('/naive'));
  }
  /** An exact planner's plan of this model, where one ran. */
  optimum(model: string): { footprint: number; proven: boolean } | undefined {
    const cell = this.cells.find((c) => c.model === model && c.optimal !== undefined);
    return cell === undefined ? undefined : { footprint: cell.footprint, proven: cell.optimal === true };
  }
  bound(model: string, approach: 'offsets' | 'sharedObjects'): number {
    return this.cells.find((c) => c.model === model)?.lowerBounds[approach] ?? NaN;
  }
  naive(model: string): number {
    return this.cells.find((c) => c.model === model)?.naive ?? NaN;
  }
  medianMs(planner: string, model: string): number | undefined {
    return this.cells.find((c) => c.planner === planner && c.model === model)?.timeMs.median;
  }
}

const mib = (bytes: number | undefined): string => (bytes === undefined ? 'n/a' : `${(bytes / MIB).toFixed(3)} MiB`);
const percent = (value: number): string => `${(value * 100).toFixed(1)}%`;
const verdict = (holds: boolean): ClaimVerdict['verdict'] => (holds ? 'holds' : 'does not hold');

/** The model whose source names this network (`zoo:deeplab-v3` for 'deeplab-v3'). */
function networkModel(cells: Cells, network: string): string | undefined {
  return cells.models.find((m) => m === `zoo:${network}` || m.startsWith(`zoo:${network}?`));
}

/** Max over networks of f, with the network that gives it. */
function maxOver(cells: Cells, f: (model: string) => number | undefined): { value: number; label: string } {
  let value = -Infinity;
  let label = 'none';
  for (const model of cells.models) {
    const v = f(model);
    if (v !== undefined && Number.isFinite(v) && v > value) {
      value = v;
      label = cells.label(model);
    }
  }
  return { value, label };
}

export function evaluateClaims(inputs: ClaimInputs): ClaimVerdict[] {
  const so = new Cells(inputs.sharedObjects);
  const off = new Cells(inputs.offsets);
  const claims: ClaimVerdict[] = [];

  // 1. GBSI best everywhere but MobileNet v2, where Greedy by Breadth wins.
  {
    const mnv2 = networkModel(so, 'mobilenet-v2');
    const failures: string[] = [];
    for (const model of so.models) {
      const improved = so.footprint('shared-objects/greedy-by-size-improved', model);
      const best = so.best(so.strategies(), model);
      if (model === mnv2) {
        const breadth = so.footprint('shared-objects/greedy-by-breadth', model);
        if (!(breadth !== undefined && improved !== undefined && breadth < improved)) {
          failures.push(`on ${so.label(model)} Greedy by Breadth needs ${mib(breadth)} and Greedy by Size Improved ${mib(improved)}`);
        }
      } else if (improved !== best.footprint) {
        failures.push(`on ${so.label(model)} ${best.planners.join(', ')} (${mib(best.footprint)}) beats Greedy by Size Improved (${mib(improved)})`);
      }
    }
    claims.push({
      id: 1,
      claim: 'Shared objects: Greedy by Size Improved is best on every network except MobileNet v2, where Greedy by Breadth is better.',
      verdict: verdict(failures.length === 0 && mnv2 !== undefined),
      evidence: failures.length === 0 ? 'As stated, on every network of Table 1.' : `${failures.join('; ')}.`,
    });
  }

  // 2. Up to 11% better than prior work.
  {
    const gain = maxOver(so, (m) => 1 - so.best(PAPER_SO, m).footprint / so.best(PRIOR_SO, m).footprint);
    claims.push({
      id: 2,
      claim: 'Shared objects: up to 11% smaller than prior work (Greedy, Min-cost Flow).',
      verdict: verdict(gain.value >= 0.11 - TOLERANCE.percentagePoints / 100),
      evidence: `The best of the paper's strategies is up to ${percent(gain.value)} smaller than the better of Greedy and Min-cost Flow (${gain.label}).`,
    });
  }

  // 3. Best reaches the bound on MobileNet v1, PoseNet, BlazeFace; within 16% elsewhere.
  {
    const exact = ['mobilenet-v1', 'posenet', 'blazeface'].map((n) => networkModel(so, n));
    const parts: string[] = [];
    let holds = exact.every((m) => m !== undefined);
    for (const model of so.models) {
      const ratio = so.best(so.strategies(), model).footprint / so.bound(model, 'sharedObjects');
      const ok = exact.includes(model) ? ratio === 1 : ratio <= 1.16;
      holds &&= ok;
      parts.push(`${so.label(model)} ${ratio.toFixed(3)}x`);
    }
    // Where an exact planner ran: how far the bound itself is from the optimum.
    const optima = so.models.flatMap((model) => {
      const optimum = so.optimum(model);
      return optimum === undefined ? [] : [`${so.label(model)} ${(optimum.footprint / so.bound(model, 'sharedObjects')).toFixed(4)}x${optimum.proven ? '' : ' (best found)'}`];
    });
    claims.push({
      id: 3,
      claim: 'Shared objects: the best strategy reaches the lower bound on MobileNet v1, PoseNet and BlazeFace, and is within 16% of it on the others.',
      verdict: verdict(holds),
      evidence: `Best strategy over the lower bound: ${parts.join(', ')}.${optima.length > 0 ? ` The optimum over the lower bound: ${optima.join(', ')}; where it exceeds 1, no strategy can reach the bound.` : ''}`,
    });
  }

  // 4. Offsets: Greedy by Size reaches the bound except on DeepLab v3 (within 8%).
  {
    const deeplab = networkModel(off, 'deeplab-v3');
    const parts: string[] = [];
    let holds = deeplab !== undefined;
    for (const model of off.models) {
      const ratio = (off.footprint('offsets/greedy-by-size', model) ?? NaN) / off.bound(model, 'offsets');
      holds &&= model === deeplab ? ratio <= 1.08 : ratio === 1;
      parts.push(`${off.label(model)} ${ratio.toFixed(3)}x`);
    }
    claims.push({
      id: 4,
      claim: 'Offsets: Greedy by Size is best; it reaches the lower bound on every network except DeepLab v3, where it is within 8%.',
      verdict: verdict(holds),
      evidence: `Greedy by Size over the lower bound: ${parts.join(', ')}.`,
    });
  }

  // 5. Up to 25% less than Greedy, 7.7% less than Strip Packing Best-fit, 10.5x less than Naive.
  {
    const gbs = (m: string): number => off.footprint('offsets/greedy-by-size', m) ?? NaN;
    const vsGreedy = maxOver(off, (m) => 1 - gbs(m) / (off.footprint('shared-objects/greedy-in-order', m) ?? NaN));
    const vsStrip = maxOver(off, (m) => 1 - gbs(m) / (off.footprint('offsets/strip-packing-best-fit', m) ?? NaN));
    const vsNaive = maxOver(off, (m) => off.naive(m) / gbs(m));
    const holds =
      vsGreedy.value >= 0.25 - TOLERANCE.percentagePoints / 100 &&
      vsStrip.value >= 0.077 - TOLERANCE.percentagePoints / 100 &&
      vsNaive.value >= 10.5 - TOLERANCE.times;
    claims.push({
      id: 5,
      claim: 'Offsets: Greedy by Size uses up to 25% less than Greedy, up to 7.7% less than Strip Packing Best-fit, and up to 10.5x less than Naive.',
      verdict: verdict(holds),
      evidence:
        `Up to ${percent(vsGreedy.value)} less than Greedy (${vsGreedy.label}), up to ${percent(vsStrip.value)} less than Strip Packing Best-fit ` +
        `(${vsStrip.label}), up to ${vsNaive.value.toFixed(2)}x less than Naive (${vsNaive.label}).`,
    });
  }

  // 6. DeepLab: Strip Packing Best-fit 7.2% better than Greedy by Size, very close to the bound.
  {
    const deeplab = networkModel(off, 'deeplab-v3');
    const strip = deeplab ? off.footprint('offsets/strip-packing-best-fit', deeplab) : undefined;
    const gbs = deeplab ? off.footprint('offsets/greedy-by-size', deeplab) : undefined;
    const gain = strip !== undefined && gbs !== undefined ? 1 - strip / gbs : NaN;
    const closeness = deeplab && strip !== undefined ? strip / off.bound(deeplab, 'offsets') : NaN;
    claims.push({
      id: 6,
      claim: 'Offsets on DeepLab v3: Strip Packing Best-fit is 7.2% better than Greedy by Size, very close to the lower bound.',
      verdict: verdict(Math.abs(gain - 0.072) <= TOLERANCE.percentagePoints / 100 && closeness <= 1.01),
      evidence: `Strip Packing Best-fit needs ${mib(strip)}, ${percent(gain)} less than Greedy by Size (${mib(gbs)}), ${closeness.toFixed(3)}x the lower bound.`,
    });
  }

  // 7. Inference up to 10% faster: naive buffers against Greedy by Size's arena, when measured.
  {
    const measured = (inputs.latency ?? []).filter((c) => c.latencyMs !== undefined);
    const speedups: string[] = [];
    let best = -Infinity;
    for (const model of [...new Set(measured.map((c) => c.model))]) {
      const naive = measured.find((c) => c.model === model && c.planner.endsWith('/naive'));
      const reuse = measured.find((c) => c.model === model && c.planner === 'offsets/greedy-by-size');
      if (!naive?.latencyMs || !reuse?.latencyMs) continue;
      const speedup = naive.latencyMs.median / reuse.latencyMs.median - 1;
      // Counted only where the 95% intervals of the medians do not overlap.
      const significant = reuse.latencyMs.ci95[1] < naive.latencyMs.ci95[0];
      if (significant) best = Math.max(best, speedup);
      speedups.push(`${naive.modelLabel} ${speedup >= 0 ? '+' : ''}${percent(speedup)}${significant ? '' : ' (not significant)'}`);
    }
    claims.push({
      id: 7,
      claim: 'Memory reuse improves cache hits: inference is up to 10% faster.',
      verdict: speedups.length === 0 ? 'pending' : verdict(best >= 0.1 - TOLERANCE.percentagePoints / 100),
      evidence:
        speedups.length === 0
          ? 'Needs latency measured by an executing backend (experiments/latency-cpu.json); this reproduction only plans.'
          : `Speed of Greedy by Size's arena over naive buffers (median latency, ${measured[0].backend}): ${speedups.join(', ')}.`,
    });
  }

  // 8. A few milliseconds.
  {
    const slow: string[] = [];
    for (const [cells, planners] of [
      [so, PAPER_SO],
      [off, PAPER_OFFSETS],
    ] as const) {
      for (const planner of planners) {
        const over = cells.models.filter((m) => (cells.medianMs(planner, m) ?? Infinity) > FEW_MILLISECONDS);
        if (over.length > cells.models.length / 2) slow.push(`${planner} on ${over.map((m) => cells.label(m)).join(', ')}`);
      }
    }
    claims.push({
      id: 8,
      claim: 'The strategies run in a few milliseconds on most networks.',
      verdict: verdict(slow.length === 0),
      evidence:
        slow.length === 0
          ? `Every strategy of the paper plans most networks in under ${FEW_MILLISECONDS} ms (median of the runs; the figures are in timings.md).`
          : `Over ${FEW_MILLISECONDS} ms on most networks: ${slow.join('; ')}.`,
    });
  }
  return claims;
}

export function claimsToMarkdown(claims: readonly ClaimVerdict[]): string {
  const mark = { holds: 'holds', 'does not hold': '**does not hold**', pending: '*pending*' } as const;
  const rows = claims.map((c) => `| ${c.id} | ${c.claim} | ${mark[c.verdict]} | ${c.evidence} |`);
  return `${['| # | Claim of the paper | On our numbers | Figures |', '|---|---|---|---|', ...rows].join('\n')}\n`;
}
