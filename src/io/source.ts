import { readFile } from 'node:fs/promises';
import type { Problem } from '../core/problem.ts';
import { chainProblem, randomDagProblem } from '../core/synthetic.ts';
import type { Graph } from '../graph/ir.ts';
import { graphToProblem, type RecordOptions } from '../graph/lifetimes.ts';
import { buildZooModel } from '../models/zoo.ts';
import { InputError } from './input-error.ts';
import { readOnnx } from './onnx/read-onnx.ts';
import { parseRecordsCsv } from './records-csv.ts';
import { parseRecordsJson } from './records-json.ts';
import { readTflite } from './tflite/read-tflite.ts';

export interface SourceOptions {
  /** Full shapes for graph inputs whose dimensions the file leaves open. */
  readonly inputShapes?: ReadonlyMap<string, readonly number[]>;
}

/** A network enters as a Graph; a record file enters directly as a Problem. */
export type Source = { readonly kind: 'graph'; readonly graph: Graph } | { readonly kind: 'records'; readonly problem: Problem };

export const SOURCE_KINDS = 'zoo:<model>, synthetic:chain|dag?n=N&seed=S, .tflite, .onnx, .csv (MiniMalloc, half-open) or .json (closed) records';

/** `synthetic:chain?n=1000&seed=1` or `synthetic:dag?n=...`: seeded generated problems. */
function syntheticProblem(source: string): Problem {
  const match = /^synthetic:(chain|dag)(?:\?(.*))?$/.exec(source);
  if (!match) throw new InputError(source, undefined, 'expected synthetic:chain?n=N&seed=S or synthetic:dag?n=N&seed=S.');
  const parameters = new URLSearchParams(match[2] ?? '');
  const number = (key: string, fallback: number): number => {
    const value = Number(parameters.get(key) ?? fallback);
    if (!Number.isSafeInteger(value) || value < (key === 'n' ? 1 : 0)) throw new InputError(source, undefined, `${key} must be a whole number${key === 'n' ? ' >= 1' : ' >= 0'}.`);
    return value;
  };
  const n = number('n', 1000);
  const seed = number('seed', 1);
  const problem = match[1] === 'chain' ? chainProblem(n, seed) : randomDagProblem(n, seed);
  return { ...problem, name: `${match[1]}-${n}` };
}

/**
 * The one door from a source name to what the pipeline plans (DESIGN.md): `zoo:` names
 * and paths by extension. Commands and the runner come through here, never to a reader.
 */
export async function loadSource(source: string, options: SourceOptions = {}): Promise<Source> {
  if (source.startsWith('zoo:')) return { kind: 'graph', graph: buildZooModel(source) };
  if (source.startsWith('synthetic:')) return { kind: 'records', problem: syntheticProblem(source) };
  const extension = /\.([^./\\]+)$/.exec(source)?.[1]?.toLowerCase();
  if (extension === undefined || !['csv', 'json', 'tflite', 'onnx'].includes(extension)) {
    throw new InputError(source, undefined, `unknown source type; expected ${SOURCE_KINDS}.`);
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(source);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(source, undefined, code === 'ENOENT' ? 'no such file.' : `cannot be read (${code ?? String(error)}).`);
  }
  switch (extension) {
    case 'csv':
      return { kind: 'records', problem: parseRecordsCsv(bytes.toString('utf8'), source) };
    case 'json':
      return { kind: 'records', problem: parseRecordsJson(bytes.toString('utf8'), source) };
    case 'tflite':
      return { kind: 'graph', graph: readTflite(new Uint8Array(bytes), source, options) };
    default:
      return { kind: 'graph', graph: readOnnx(new Uint8Array(bytes), source, options) };
  }
}

/** Any source as usage records; graphs go through `graphToProblem` with the record options. */
export async function loadProblem(source: string, options: SourceOptions & RecordOptions = {}): Promise<Problem> {
  const loaded = await loadSource(source, options);
  return loaded.kind === 'records' ? loaded.problem : graphToProblem(loaded.graph, options);
}
