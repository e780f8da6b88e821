import type { Argv } from 'yargs';
import { OPERATOR_ORDERS, type OperatorOrder, type RecordOptions } from '../graph/lifetimes.ts';
import { parseSchedule, SCHEDULE_FORMS } from '../graph/schedule.ts';
import type { SourceOptions } from '../io/source.ts';
import { UsageError } from './errors.ts';

export interface SourceArgs {
  inputShape?: string[];
  includeGraphIo: boolean;
  elementSize?: number;
  roundChannels: boolean;
  nhwc: boolean;
  fuseActivations: boolean;
  dropIdentityOps: boolean;
  order: OperatorOrder;
  schedule: string;
}

/** The options every command that reads a network shares (how a graph becomes records). */
export function withSourceOptions<T>(y: Argv<T>): Argv<T & SourceArgs> {
  return y
    .option('input-shape', { type: 'string', array: true, describe: 'fix a dynamic graph input: name=1x224x224x3 (repeatable)' })
    .option('include-graph-io', { type: 'boolean', default: false, describe: 'graph sources: keep graph inputs and outputs as records' })
    .option('element-size', { type: 'number', describe: 'graph sources: bytes per element for every tensor (4 = fp32, as the paper)' })
    .option('round-channels', { type: 'boolean', default: false, describe: 'graph sources: round channels up to a multiple of 4 (GPU PHWC4)' })
    .option('nhwc', { type: 'boolean', default: false, describe: 'graph sources: lay an NCHW graph (ONNX) out as NHWC first, where every node converts (the CPU executors always do)' })
    .option('fuse-activations', { type: 'boolean', default: false, describe: 'graph sources: fuse standalone activations into their producers (the CPU executors always do)' })
    .option('drop-identity-ops', { type: 'boolean', default: false, describe: 'graph sources: drop ops that move no data' })
    .option('order', {
      choices: OPERATOR_ORDERS,
      default: 'given' as OperatorOrder,
      describe: 'graph sources: operator order; memory-aware lowers the peak of live bytes (planned and run in that order)',
    })
    .option('schedule', {
      type: 'string',
      default: 'sequential',
      describe: 'graph sources: steps of operators that may run at once (sequential, levels, groups:K); tensors of one step never share memory',
    }) as unknown as Argv<T & SourceArgs>;
}

export function sourceOptions(args: SourceArgs): SourceOptions & RecordOptions {
  if (args.elementSize !== undefined && (!Number.isSafeInteger(args.elementSize) || args.elementSize < 1)) {
    throw new UsageError(`--element-size must be a whole number of bytes >= 1, got ${args.elementSize}.`);
  }
  const schedule = parseSchedule(args.schedule);
  if (schedule === undefined) throw new UsageError(`--schedule must be ${SCHEDULE_FORMS}, got "${args.schedule}".`);
  return {
    inputShapes: parseInputShapes(args.inputShape ?? []),
    includeGraphIO: args.includeGraphIo,
    elementSize: args.elementSize,
    roundChannelsTo4: args.roundChannels,
    nhwc: args.nhwc,
    fuseActivations: args.fuseActivations,
    dropIdentityOps: args.dropIdentityOps,
    order: args.order,
    schedule,
  };
}

/** `name=1x224x224x3` pairs. */
export function parseInputShapes(values: readonly string[]): Map<string, number[]> {
  const shapes = new Map<string, number[]>();
  for (const value of values) {
    const match = /^(.+)=(\d+(?:x\d+)*)$/.exec(value);
    if (!match) throw new UsageError(`--input-shape "${value}" is not of the form name=1x224x224x3.`);
    const shape = match[2].split('x').map(Number);
    if (shape.some((d) => !Number.isSafeInteger(d) || d < 1)) throw new UsageError(`--input-shape "${value}": dimensions must be whole numbers >= 1.`);
    shapes.set(match[1], shape);
  }
  return shapes;
}
