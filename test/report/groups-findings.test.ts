import { describe, expect, it } from 'vitest';
import { findingsMarkdown, measuredFinding, thesisFindings, type GroupsFinding } from '../../src/report/groups-findings.ts';
import { CONFIG, groupsCell, MiB, thesisLikeRows } from './groups-cells.ts';

const on = (findings: readonly GroupsFinding[], network: string, start: string): GroupsFinding => {
  const found = findings.find((f) => f.network === network && f.finding.startsWith(start));
  if (found === undefined) throw new Error(`no finding on ${network} starting "${start}" in ${JSON.stringify(findings.map((f) => f.finding))}`);
  return found;
};

describe("the thesis' findings, decided on our numbers", () => {
  it('holds everywhere when ours is the thesis on another scale (our CPU twice as slow, memory in MiB)', () => {
    const findings = thesisFindings(CONFIG, thesisLikeRows('ResNeXt', 2));
    expect(findings.map((f) => [f.finding, f.verdict])).toEqual([
      ["ResNeXt: method, 2 groups is 6.85% faster than base (no reuse) with 72.4% less memory (the thesis' conclusion).", 'holds'],
      ['memory minimization holds 72.4% less memory than base (no reuse) at about its time.', 'holds'],
      ['layer-wise parallel (no reuse) holds the same memory as base (no reuse).', 'holds'],
      ['method, 1 group holds 2.8% more memory than memory minimization.', 'holds'],
      ['method, 2 groups holds the same memory as memory minimization.', 'holds'],
      ['method, 2 groups is the fastest row of the table.', 'holds'],
    ]);
    // The headline against the thesis' own table: base over 2 groups less one, the interval from its spans.
    expect(findings[0].evidence).toMatch(
      /^Its table gives 6\.85% \(234 \/ 219 − 1; 3\.6% to 10\.1% within its spans\) and 72\.4% \(1 − 108\.8 \/ 393\.7\)\. Ours: 6\.8% faster \(3\.6% to 10\.1%\), 72\.4% less held memory/,
    );
    expect(on(findings, 'ResNeXt', 'memory minimization').evidence).toBe(
      'Memory: thesis 108.8 against 393.7 MB (−72.4%); ours 108.80 against 393.70 MiB held (−72.4%; the arenas 108.80 against 393.70 MiB, −72.4%). ' +
        'Time, memory minimization over base (no reuse): thesis 235 ± 6 against 234 ± 5 ms, 0.96–1.05x (no difference at its spread); ours 470.0 [458.0, 482.0] against 468.0 [458.0, 478.0] ms, 0.96–1.05x (not told apart).',
    );
    expect(on(findings, 'ResNeXt', 'method, 2 groups is the fastest').evidence).toBe('Ours: 438.0 [434.0, 442.0] ms, below every other interval. The thesis: 219 ± 2 ms, below every other interval.');
  });

  it('does not hold, and says the reversal in words, where ours goes the other way', () => {
    // 2 groups slower than base here (intervals apart); layer-wise planned half of base's memory.
    const cells = thesisLikeRows('ResNeXt', 2, { '2-groups': { ms: 500, ci: [495, 505] }, 'layer-wise': { plannedMiB: 200 } });
    const findings = thesisFindings(CONFIG, cells);
    const headline = findings[0];
    expect(headline.verdict).toBe('does not hold');
    // 500 over 468 ms: 6.8% slower; from the intervals [495, 505] over [458, 478], a speed-up of 458 / 505 − 1 to 478 / 495 − 1, below zero throughout.
    expect(headline.evidence).toMatch(
      / Ours: 6\.8% slower \(−9\.3% to −3\.4%\), 72\.4% less held memory \(the arena 72\.4% less\)\. Not so: method, 2 groups is slower than base \(no reuse\) here\. Time \*\*does not hold\*\*, memory holds\.$/,
    );
    const fastestRow = on(findings, 'ResNeXt', 'method, 2 groups is the fastest');
    expect(fastestRow.verdict).toBe('does not hold');
    expect(fastestRow.evidence).toMatch(
      /^Ours: 500\.0 \[495\.0, 505\.0\] ms; not so: base \(no reuse\), memory minimization, layer-wise parallel \(no reuse\), method, 1 group ran faster \(intervals apart\)\./,
    );
    const layerWise = on(findings, 'ResNeXt', 'layer-wise');
    expect(layerWise.verdict).toBe('does not hold');
    expect(layerWise.evidence).toMatch(/ Here layer-wise parallel \(no reuse\) holds 49\.2% less memory than base \(no reuse\)\.$/);
  });

  it('says a difference the thesis does not have, where its intervals overlap and ours are apart', () => {
    // Minimization 30% faster than base here; the thesis: 235 ± 6 against 234 ± 5.
    const finding = on(thesisFindings(CONFIG, thesisLikeRows('ResNeXt', 2, { minimization: { ms: 330, ci: [320, 340] } })), 'ResNeXt', 'memory minimization');
    expect(finding.verdict).toBe('does not hold');
    expect(finding.evidence).toMatch(/ Here memory minimization is faster than base \(no reuse\), where the thesis shows no difference\.$/);
  });

  it('cannot tell where our intervals overlap', () => {
    const findings = thesisFindings(CONFIG, thesisLikeRows('ResNeXt', 2, { '2-groups': { ms: 455, ci: [440, 470] } }));
    expect(findings[0].verdict).toBe('inconclusive');
    const fastestRow = on(findings, 'ResNeXt', 'method, 2 groups is the fastest');
    expect(fastestRow.verdict).toBe('inconclusive');
    expect(fastestRow.evidence).toMatch(
      /^Ours: 455\.0 \[440\.0, 470\.0\] ms, not told apart from base \(no reuse\), memory minimization, layer-wise parallel \(no reuse\), method, 1 group \(intervals overlap\)\./,
    );
  });

  it("gives the thesis' own figures where they do not show 2 groups fastest, and waits where rows did not run", () => {
    // GoogLeNet in the thesis: 2 groups 78 ± 1, layer-wise 77 ± 1, 1 group 78 ± 2: not told apart.
    const google = on(thesisFindings(CONFIG, thesisLikeRows('GoogLeNet', 4)), 'GoogLeNet', 'method, 2 groups is the fastest');
    expect(google.evidence).toMatch(/The thesis: 78 ± 1 ms, not told apart from base \(no reuse\), layer-wise parallel \(no reuse\), method, 1 group \(intervals overlap\)\.$/);
    const partial = thesisFindings(
      CONFIG,
      thesisLikeRows('GoogLeNet', 4).filter((c) => c.row === 'base'),
    );
    expect(partial.map((f) => f.verdict)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);
    expect(on(partial, 'GoogLeNet', 'memory minimization').evidence).toMatch(/^Memory: ours not measured/);
  });

  it("waits on the headline where its rows did not run, its own table's figures given all the same", () => {
    const [headline] = thesisFindings(
      CONFIG,
      thesisLikeRows('ResNeXt', 2).filter((c) => c.row === 'base'),
    );
    expect(headline).toMatchObject({ network: 'ResNeXt', verdict: 'pending' });
    expect(headline.evidence).toBe('Its table gives 6.85% (234 / 219 − 1; 3.6% to 10.1% within its spans) and 72.4% (1 − 108.8 / 393.7). Ours: not measured.');
  });

  it('says more memory where 2 groups holds more than base', () => {
    const [headline] = thesisFindings(CONFIG, thesisLikeRows('ResNeXt', 2, { '2-groups': { plannedMiB: 400 } }));
    expect(headline.verdict).toBe('does not hold');
    expect(headline.evidence).toMatch(/, 1\.6% more held memory \(the arena 1\.6% more\)\. Not so: method, 2 groups holds 1\.6% more memory than base \(no reuse\) here\./);
  });

  it('decides on a network the thesis has no figures for only what needs none of them', () => {
    const cells = thesisLikeRows('ResNeXt', 2).map((c) => ({ ...c, network: 'ResNeXt (grouped)' }));
    const findings = thesisFindings(CONFIG, cells).filter((f) => f.network === 'ResNeXt (grouped)');
    expect(findings.map((f) => f.finding)).toEqual(['method, 2 groups is the fastest row of the table.']);
    expect(findings[0].evidence).toMatch(/The thesis gives no times for this network\.$/);
  });

  it('writes a table in the words of the claims', () => {
    const markdown = findingsMarkdown(thesisFindings(CONFIG, thesisLikeRows('ResNeXt', 2, { '2-groups': { ms: 500, ci: [495, 505] } })));
    expect(markdown.split('\n').slice(0, 2)).toEqual(['| network | finding of the thesis | on our numbers | figures |', '|---|---|---|---|']);
    expect(markdown).toMatch(/^\| ResNeXt \| method, 2 groups is the fastest row of the table\. \| \*\*does not hold\*\* \| Ours: /m);
  });
});

describe('measured as planned', () => {
  it("calls a parallel row measured as planned when its peak, less its plan's excess, is within 5% + 1 MiB of minimization's", () => {
    const row = (plannedMiB: number, peakMiB: number) => ({ footprint: plannedMiB * MiB, memory: { peakRssDelta: peakMiB * MiB } });
    const minimization = row(10, 100);
    // 100 * 1.05 + 1 = 106 MiB allowed once the plan's 4 extra MiB are taken off.
    expect(measuredFinding('N', minimization, [{ name: '2 groups', r: row(14, 110) }])).toMatch(/2 groups 110\.00 MiB \(a plan 4\.00 MiB larger; as planned\)/);
    expect(measuredFinding('N', minimization, [{ name: '2 groups', r: row(14, 110.1) }])).toMatch(/\*\*more than planned\*\*/);
    expect(measuredFinding('N', minimization, [{ name: '1 group', r: row(10, 95) }])).toMatch(/1 group 95\.00 MiB \(the same plan size; as planned\)/);
    expect(measuredFinding('N', undefined, [{ name: '1 group', r: row(10, 95) }])).toBeUndefined();
    expect(measuredFinding('N', minimization, [{ name: '1 group', r: undefined }])).toBeUndefined();
  });

  it('reads the network held memory from weights, arena, I/O and scratch', () => {
    const cell = groupsCell({ network: 'N', row: 'base', schedule: 'sequential', backend: 'cpu', ms: 10, plannedMiB: 10, weightsMiB: 20, scratchMiB: 1 });
    expect(cell.report!.footprint + cell.report!.memory.weights + cell.report!.memory.scratch).toBe(31 * MiB);
  });
});
