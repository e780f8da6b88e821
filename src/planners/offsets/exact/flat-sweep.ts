/**
 * Flat groups with a time cut, found by a sweep over time: subsets of a piece's records
 * (live over points [a, b)) whose live grains are exactly g at every point and that have a
 * point none of them crosses. band-peel.ts peels such groups off the bottom of a part with
 * no slack; flat-groups.ts asks the same question by constraint propagation, which on a
 * thousand records leaves hundreds of records free and thrashes.
 *
 * The sweep decides, point by point, which of the records starting there join the group
 * (subsets that bring the group's live grains at the point to exactly g). What the rest of
 * the sweep can do depends only on which records of the group cross into the point (and
 * whether a cut has been passed): a state from which no flat group follows is remembered
 * and never entered again, which is what makes the sweep fast where a search over records
 * re-explores the same dead ends through different pasts. Two running sums per point
 * prune: the group's grains so far (at most g) and those plus every undecided record's (at
 * least g).
 *
 * `tick` counts a node (and throws to stop the sweep); `found` gets each flat group (record
 * ids) and returns true to stop. Returns whether a group was accepted.
 */
export function eachFlatGroup(
  ids: readonly number[],
  a: number,
  b: number,
  g: number,
  first: Int32Array,
  last: Int32Array,
  units: Int32Array,
  tick: () => void,
  found: (group: number[]) => boolean,
): boolean {
  const span = b - a;
  // Records by first point, the largest first; records of no size never join (they fit anywhere).
  const starters: number[][] = Array.from({ length: span }, () => []);
  for (const k of ids) if (units[k] > 0) starters[first[k] - a].push(k);
  for (const s of starters) s.sort((p, q) => units[q] - units[p] || p - q);
  // Per point: grains of the group, and grains of records not yet decided.
  const inGroup = new Int32Array(span);
  const undecided = new Int32Array(span);
  for (const k of ids) for (let t = first[k] - a; t <= last[k] - a; t++) undecided[t] += units[k];
  const group: number[] = [];
  const barren: Set<string>[] = Array.from({ length: span }, () => new Set());
  let accepted = false;

  /** Whether some flat group completes the sweep from point t (with `cut` once one has been passed). */
  const visit = (t: number, cut: boolean, open: readonly number[]): boolean => {
    tick();
    if (t === span) {
      if (!cut) return false;
      accepted = found(group.slice());
      return true;
    }
    // The group's records that cross into t: those of `open` (the group's records live at t - 1) still live.
    const crossing = open.filter((k) => last[k] >= a + t);
    if (t > 0 && crossing.length === 0) cut = true;
    const key = (cut ? 'c' : '') + crossing.sort((p, q) => p - q).join(',');
    if (barren[t].has(key)) return false;

    const s = starters[t];
    const m = s.length;
    const suffix = new Int32Array(m + 1);
    for (let i = m - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + units[s[i]];
    // Every record starting here is decided here: none is undecided from t on.
    let through = t;
    for (const k of s) {
      through = Math.max(through, last[k] - a);
      for (let u = t; u <= last[k] - a; u++) undecided[u] -= units[k];
    }
    let any = false;
    // Subsets of s (largest first, "in" before "out") summing to what the point lacks, without recursion.
    const need = g - inGroup[t];
    const picked: number[] = [];
    let i = 0;
    let rest = need;
    while (need >= 0 && !accepted) {
      if (rest === 0) {
        if (join(picked)) any = visit(t + 1, cut, crossing.concat(picked.map((c) => s[c]))) || any;
        leave(picked);
      } else if (i < m && suffix[i] >= rest) {
        if (units[s[i]] <= rest) {
          picked.push(i);
          rest -= units[s[i]];
        }
        i++;
        continue;
      }
      // Back up: the last record taken goes out, and the subsets without it are next.
      if (picked.length === 0) break;
      const j = picked.pop()!;
      rest += units[s[j]];
      i = j + 1;
    }
    for (const k of s) for (let u = t; u <= last[k] - a; u++) undecided[u] += units[k];
    if (!any && !accepted) barren[t].add(key);
    return any;

    /** Adds the picked records to the group; whether every point they touch can still be exactly g. */
    function join(chosen: readonly number[]): boolean {
      for (const c of chosen) {
        const k = s[c];
        group.push(k);
        for (let u = t; u <= last[k] - a; u++) inGroup[u] += units[k];
      }
      for (let u = t; u <= through; u++) if (inGroup[u] > g || inGroup[u] + undecided[u] < g) return false;
      return true;
    }

    /** Takes the picked records out of the group again. */
    function leave(chosen: readonly number[]): void {
      for (const c of chosen) {
        const k = s[c];
        group.pop();
        for (let u = t; u <= last[k] - a; u++) inGroup[u] -= units[k];
      }
    }
  };

  visit(0, false, []);
  return accepted;
}
