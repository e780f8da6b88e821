import { describe, expect, it } from 'vitest';
import { withoutDawnNoise } from '../../../src/backends/webgpu/device-probe.ts';

describe("the WebGPU probe's stderr", () => {
  it("drops Dawn's start-up lines about lowered dynamic-buffer limits, and only those", () => {
    const stderr = [
      'Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit dynamic offset allocation limit.',
      'Warning: maxDynamicStorageBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit dynamic offset allocation limit.',
      'Warning: something else Dawn says',
      '',
    ].join('\n');
    expect(withoutDawnNoise(stderr)).toBe('Warning: something else Dawn says\n');
    expect(withoutDawnNoise(stderr.split('\n').slice(0, 2).join('\n'))).toBe('');
    expect(withoutDawnNoise('')).toBe('');
  });
});
