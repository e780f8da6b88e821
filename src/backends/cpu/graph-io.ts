import type { Graph } from '../../graph/ir.ts';
import { BackendError } from '../backend-error.ts';

/**
 * A prepared network's graph inputs and outputs on the CPU: inputs copied into their
 * views, checked; outputs handed back in arrays made once (PreparedNetwork.infer: valid
 * until the next inference), whose bytes count with the graph I/O.
 */
export class GraphIo {
  private readonly handed: Map<string, Float32Array>;
  readonly handedBytes: number;

  constructor(
    private readonly graph: Pick<Graph, 'inputs' | 'outputs'>,
    private readonly view: (name: string) => Float32Array,
  ) {
    this.handed = new Map(graph.outputs.map((name) => [name, new Float32Array(view(name).length)]));
    let bytes = 0;
    for (const values of this.handed.values()) bytes += values.byteLength;
    this.handedBytes = bytes;
  }

  load(inputs: ReadonlyMap<string, Float32Array>): void {
    for (const name of this.graph.inputs) {
      const given = inputs.get(name);
      const target = this.view(name);
      if (given === undefined || given.length !== target.length) {
        throw new BackendError(`input ${name} needs ${target.length} float32 values, got ${given?.length ?? 'none'}.`);
      }
      target.set(given);
    }
  }

  handOut(): Map<string, Float32Array> {
    for (const [name, values] of this.handed) values.set(this.view(name));
    return this.handed;
  }
}
