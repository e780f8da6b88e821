import type { RecordOptions } from '../graph/lifetimes.ts';
import type { Backend } from './backend.ts';

/**
 * The record options a backend runs a network with: fp32 tensors, its kernels' scratch as
 * records of their own where it plans them (Backend.plansScratch), and standalone
 * activations fused into their producers where it runs them so (Backend.fusesActivations),
 * and NCHW graphs laid out NHWC where its kernels run that layout in place (Backend.runsNhwc).
 */
export function executionRecords(backend: Pick<Backend, 'plansScratch' | 'fusesActivations' | 'runsNhwc'>, records: RecordOptions = {}): RecordOptions {
  const { scratch: _given, ...rest } = records;
  return {
    ...rest,
    elementSize: 4,
    ...(backend.runsNhwc ? { nhwc: true } : {}),
    ...(backend.plansScratch ? { scratch: true } : {}),
    ...(backend.fusesActivations ? { fuseActivations: true } : {}),
  };
}
