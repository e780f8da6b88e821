import type { RecordOptions } from '../graph/lifetimes.ts';
import type { Backend } from './backend.ts';

/**
 * The record options a backend runs a network with: fp32 tensors, its kernels' scratch as
 * records of their own where it plans them (Backend.plansScratch), and standalone
 * activations fused into their producers where it runs them so (Backend.fusesActivations).
 */
export function executionRecords(backend: Pick<Backend, 'plansScratch' | 'fusesActivations'>, records: RecordOptions = {}): RecordOptions {
  const { scratch: _given, ...rest } = records;
  return { ...rest, elementSize: 4, ...(backend.plansScratch ? { scratch: true } : {}), ...(backend.fusesActivations ? { fuseActivations: true } : {}) };
}
