import { InvalidProblemError, type Problem } from '../core/problem.ts';
import { PLANTED_FAMILIES, PLANTED_GRAIN, PLANTED_HEIGHT, plantedProblem, type PlantedFamily } from '../core/planted.ts';
import { chainProblem, randomDagProblem } from '../core/synthetic.ts';
import { GraphError, type Graph } from '../graph/ir.ts';
import { graphToProblem, type RecordOptions } from '../graph/lifetimes.ts';
import { InputError } from './input-error.ts';
import { printable } from './printable.ts';
import { readInputFile } from './read-input-file.ts';
import { decodeRecordText } from './record-text.ts';
import { parseRecordsCsv } from './records-csv.ts';
import { parseRecordsJson } from './records-json.ts';

export interface SourceOptions {
  /** Full shapes for graph inputs whose dimensions the file leaves open. */
  readonly inputShapes?: ReadonlyMap<string, readonly number[]>;
}

/** A network enters as a Graph; a record file enters directly as a Problem. */
export type Source = { readonly kind: 'graph'; readonly graph: Graph } | { readonly kind: 'records'; readonly problem: Problem };

export const SOURCE_KINDS =
  'zoo:<model>, synthetic:chain|dag?n=N&seed=S, .tflite, .onnx, .csv (MiniMalloc, half-open) or .json (closed) records; synthetic:planted?n=N&seed=S[&family=F][&grain=B] (optimum known)';

/**
 * `synthetic:chain?n=1000&seed=1`, `synthetic:dag?n=...`: seeded generated problems;
 * `synthetic:planted?n=1000&seed=1&family=guillotine&grain=4096`: a problem whose optimum
 * is known by construction (core/planted.ts; family and grain optional).
 */
function syntheticProblem(source: string): Problem {
  const match = /^synthetic:(chain|dag|planted)(?:\?(.*))?$/.exec(source);
  if (!match) throw new InputError(source, undefined, 'expected synthetic:chain?n=N&seed=S, synthetic:dag?n=N&seed=S or synthetic:planted?n=N&seed=S[&family=F][&grain=B].');
  const parameters = new URLSearchParams(match[2] ?? '');
  if (match[1] === 'planted') {
    for (const key of parameters.keys()) {
      if (!['n', 'seed', 'family', 'grain'].includes(key)) throw new InputError(source, undefined, `unknown parameter "${key}"; planted takes n, seed, family and grain.`);
    }
  }
  const number = (key: string, fallback: number): number => {
    const value = Number(parameters.get(key) ?? fallback);
    if (!Number.isSafeInteger(value) || value < (key === 'n' ? 1 : 0)) throw new InputError(source, undefined, `${key} must be a whole number${key === 'n' ? ' >= 1' : ' >= 0'}.`);
    return value;
  };
  const n = number('n', 1000);
  const seed = number('seed', 1);
  if (match[1] === 'planted') {
    const family = parameters.get('family') ?? 'dnn';
    if (!(PLANTED_FAMILIES as readonly string[]).includes(family)) throw new InputError(source, undefined, `family must be one of ${PLANTED_FAMILIES.join(', ')}.`);
    const grain = number('grain', PLANTED_GRAIN);
    if (grain < 1 || PLANTED_HEIGHT % grain !== 0 || grain > PLANTED_HEIGHT / 16) {
      throw new InputError(source, undefined, `grain must divide ${PLANTED_HEIGHT} and be at most ${PLANTED_HEIGHT / 16} bytes.`);
    }
    // Named planted-<family>-<n>-s<seed>; its optimum is PLANTED_HEIGHT (the max-breadth bound).
    return plantedProblem(n, seed, family as PlantedFamily, grain).problem;
  }
  const problem = match[1] === 'chain' ? chainProblem(n, seed) : randomDagProblem(n, seed);
  return { ...problem, name: `${match[1]}-${n}` };
}

/**
 * The one door from a source name to what the pipeline plans (DESIGN.md): `zoo:` names
 * and paths by extension. Commands and the runner come through here, never to a reader.
 */
export async function loadSource(source: string, options: SourceOptions = {}): Promise<Source> {
  // Shapes given for a source that has no open dimensions would be ignored without a word.
  const given = [...(options.inputShapes?.keys() ?? [])];
  if (given.length > 0 && !/\.(tflite|onnx)$/i.test(source)) {
    throw new InputError(source, undefined, `input shapes (${given.join(', ')}) fix dynamic inputs of .tflite and .onnx files; this source's shapes are all fixed.`);
  }
  // The zoo and each binary reader are loaded for the source that needs them: a command
  // planning a records file starts without the networks, flatbuffers or protobuf.
  if (source.startsWith('zoo:')) return { kind: 'graph', graph: (await import('../models/zoo.ts')).buildZooModel(source) };
  if (source.startsWith('synthetic:')) return { kind: 'records', problem: syntheticProblem(source) };
  if (fileKind(source) === undefined) {
    throw new InputError(source, undefined, `unknown source type; expected ${SOURCE_KINDS}.`);
  }
  return readSourceBytes(await readInputFile(source), source, options);
}

/** The reader a file name asks for, from its extension in any case. */
function fileKind(source: string): 'csv' | 'json' | 'tflite' | 'onnx' | undefined {
  const extension = /\.([^./\\]+)$/.exec(source)?.[1]?.toLowerCase();
  return extension === 'csv' || extension === 'json' || extension === 'tflite' || extension === 'onnx' ? extension : undefined;
}

/**
 * A source file's bytes as what the pipeline plans, read by the reader its extension
 * names: loadSource once the file is read (the readers' fuzz test comes in here, in
 * process). Every refusal is one line, whatever bytes the file holds.
 */
export async function readSourceBytes(bytes: Uint8Array, source: string, options: SourceOptions = {}): Promise<Source> {
  try {
    switch (fileKind(source)) {
      case 'csv':
        return { kind: 'records', problem: parseRecordsCsv(decodeRecordText(bytes, source), source) };
      case 'json':
        return { kind: 'records', problem: parseRecordsJson(decodeRecordText(bytes, source), source) };
      case 'tflite':
        return { kind: 'graph', graph: (await import('./tflite/read-tflite.ts')).readTflite(new Uint8Array(bytes), source, options) };
      case 'onnx':
        return { kind: 'graph', graph: (await import('./onnx/read-onnx.ts')).readOnnx(new Uint8Array(bytes), source, options) };
      default:
        throw new InputError(source, undefined, `unknown source type; expected ${SOURCE_KINDS}.`);
    }
  } catch (error) {
    throw oneLine(error);
  }
}

/** Any source as usage records; graphs go through `graphToProblem` with the record options. */
export async function loadProblem(source: string, options: SourceOptions & RecordOptions = {}): Promise<Problem> {
  return problemOfSource(await loadSource(source, options), source, options);
}

/** A loaded source as usage records: a record file's own, a network's by `graphToProblem`. */
export function problemOfSource(loaded: Source, source: string, options: RecordOptions = {}): Problem {
  if (loaded.kind === 'records') return loaded.problem;
  try {
    return graphToProblem(loaded.graph, options);
  } catch (error) {
    // The network's records break a problem's rules (their sizes add up past 2^53, say):
    // the user's file is at fault, so the sentence names it.
    if (error instanceof InvalidProblemError) throw new InputError(source, undefined, error.message);
    throw oneLine(error);
  }
}

/**
 * A GraphError quotes names from the file, which a corrupt file may fill with line breaks
 * and control characters; the command line prints the message as one line.
 */
function oneLine(error: unknown): unknown {
  if (!(error instanceof GraphError)) return error;
  const message = printable(error.message, Infinity);
  return message === error.message ? error : new GraphError(message);
}
