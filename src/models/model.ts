import type { DType } from '../graph/dtype.ts';
import type { Graph } from '../graph/ir.ts';

/** What a zoo network may be built with; each network says which it honours. */
export interface ModelParameters {
  /** Input height and width in pixels. */
  readonly inputSize: number;
  readonly widthMultiplier: number;
  readonly batch: number;
  readonly dtype: DType;
  /** A language model's sequence length (its input holds this many token ids). */
  readonly tokens?: number;
  /** Transformer blocks (fewer than published for quick runs). */
  readonly layers?: number;
}

export interface ZooModel {
  /** The name after `zoo:`. */
  readonly name: string;
  readonly title: string;
  /** Which published model it reproduces. */
  readonly reference: string;
  readonly defaults: ModelParameters;
  /** Parameters a user may change (others are fixed by the published model). */
  readonly tunable: readonly (keyof ModelParameters)[];
  build(parameters: ModelParameters): Graph;
}
