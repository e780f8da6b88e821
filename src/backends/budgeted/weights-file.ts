import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Problem } from '../../core/problem.ts';
import type { BudgetedNetwork } from '../../graph/budget-records.ts';
import type { Graph } from '../../graph/ir.ts';
import { weightForm } from './weight-forms.ts';

/** Weight records start at multiples of this in the file: whole pages, so that a read maps to whole pages. */
const FILE_ALIGNMENT = 4096;

/**
 * Where each weight record lies in the weights file: records in the problem's order (the
 * order of their layers, slices in slice order), each at the next multiple of 4 KiB.
 * The harness writes the file by it and the measured process reads by it, each from the
 * same records. `offsets[i]` is NaN for records that are no weights.
 */
export function weightsFileLayout(problem: Problem): { readonly offsets: Float64Array; readonly bytes: number } {
  const offsets = new Float64Array(problem.records.length).fill(NaN);
  let at = 0;
  problem.records.forEach((record, i) => {
    if (record.kind !== 'weight') return;
    offsets[i] = at;
    at += Math.ceil(record.size / FILE_ALIGNMENT) * FILE_ALIGNMENT;
  });
  return { offsets, bytes: at };
}

/**
 * The network's weights, written once in the form the executor reads (weight-forms.ts) to
 * `weights.bin` in a fresh folder (`memplan-weights-*`) under `parent` (default: the
 * system's temporary folder; the storage its reads then measure), which `dispose` removes.
 * `graph` is the budgeted network's graph with the constants' values (seeded or the file's own).
 */
export class WeightsFile {
  readonly path: string;
  private readonly dir: string;

  constructor(network: BudgetedNetwork, graph: Graph, parent: string = tmpdir()) {
    this.dir = mkdtempSync(join(parent, 'memplan-weights-'));
    this.path = join(this.dir, 'weights.bin');
    const { offsets } = weightsFileLayout(network.problem);
    const byRecord = new Map<number, string>();
    for (const [name, layer] of network.layers) if (layer.weight !== undefined) byRecord.set(layer.weight, name);
    const nodes = new Map(graph.nodes.map((n) => [n.name, n]));
    const fd = openSync(this.path, 'w');
    try {
      network.problem.records.forEach((record, i) => {
        if (record.kind !== 'weight') return;
        const node = nodes.get(byRecord.get(i) as string);
        if (node === undefined) throw new Error(`weight record ${record.id} belongs to no node of the graph.`);
        const form = weightForm(graph, node);
        if (form.byteLength !== record.size) throw new Error(`the weights of ${node.name} take ${form.byteLength} bytes, but the record says ${record.size}.`);
        writeSync(fd, new Uint8Array(form.buffer, form.byteOffset, form.byteLength), 0, form.byteLength, offsets[i]);
      });
    } catch (error) {
      closeSync(fd);
      this.dispose();
      throw error;
    }
    closeSync(fd);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
