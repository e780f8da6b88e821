import type { CellResult } from '../experiments/result.ts';

/**
 * What tables and charts call the backend of a cell: its name, and "software adapter" where
 * its device says it ran WebGPU on the CPU (SwiftShader, lavapipe), so that such figures are
 * never read as a GPU's.
 */
export function backendLabel(result: Pick<CellResult, 'backend' | 'device'>): string {
  return result.device?.software === true ? `${result.backend} (software adapter)` : result.backend;
}
