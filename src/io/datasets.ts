import { graphToProblem, PAPER_RECORD_OPTIONS } from '../graph/lifetimes.ts';
import { PAPER_ZOO } from '../models/zoo.ts';
import { recordsToCsv } from './records-writers.ts';

export interface DatasetFile {
  /** Relative to the repository root. */
  readonly path: string;
  readonly content: string;
}

/**
 * The usage records of the six networks as the paper's reproduction plans them (fp32,
 * graph inputs and outputs left out), in MiniMalloc's CSV format, so that other tools
 * (MiniMalloc, TelaMalloc, idealloc) can read exactly the problems of Table 1 and 2.
 */
export function zooDatasets(): DatasetFile[] {
  return PAPER_ZOO.map((model) => ({
    path: `datasets/zoo/${model.name}.csv`,
    content: recordsToCsv(graphToProblem(model.build(model.defaults), PAPER_RECORD_OPTIONS)),
  }));
}
