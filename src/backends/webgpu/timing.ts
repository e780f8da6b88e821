import type { GpuContext, TimingMethod } from './gpu-context.ts';

/**
 * Times the dispatches of one inference. With timestamp queries (when the adapter has
 * them): the GPU time between the start and the end of the compute pass that holds every
 * dispatch. Without: the wall time from submit until the queue reports the work done.
 */
export class DispatchTimer {
  readonly method: TimingMethod;
  private readonly querySet: GPUQuerySet | undefined;
  private readonly resolved: GPUBuffer | undefined;
  private readonly readback: GPUBuffer | undefined;
  private submittedAt = 0;
  /** Bytes of the buffers it made (for the memory report). */
  readonly bufferBytes: number;

  constructor(private readonly context: GpuContext) {
    this.method = context.timing;
    if (this.method === 'timestamp-query') {
      const { device, flags } = context;
      this.querySet = device.createQuerySet({ label: 'pass timestamps', type: 'timestamp', count: 2 });
      this.resolved = device.createBuffer({ label: 'timestamps', size: 16, usage: flags.QUERY_RESOLVE | flags.COPY_SRC });
      this.readback = device.createBuffer({ label: 'timestamps readback', size: 16, usage: flags.MAP_READ | flags.COPY_DST });
    }
    this.bufferBytes = (this.resolved?.size ?? 0) + (this.readback?.size ?? 0);
  }

  /** The compute pass descriptor: timestamps written at its beginning and end. */
  passDescriptor(): GPUComputePassDescriptor {
    if (this.querySet === undefined) return { label: 'network' };
    return { label: 'network', timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } };
  }

  /** After the pass: the timestamps into a buffer the host can map. */
  encodeResolve(encoder: GPUCommandEncoder): void {
    if (this.querySet === undefined) return;
    encoder.resolveQuerySet(this.querySet, 0, 2, this.resolved!, 0);
    encoder.copyBufferToBuffer(this.resolved!, 0, this.readback!, 0, 16);
  }

  /** Call right after submit. */
  submitted(): void {
    this.submittedAt = performance.now();
  }

  /** Milliseconds the device spent on the pass (waits for the work to be done); undefined when the timestamps came back unusable. */
  async elapsedMs(): Promise<number | undefined> {
    if (this.readback === undefined) {
      await this.context.settle(this.context.device.queue.onSubmittedWorkDone());
      return performance.now() - this.submittedAt;
    }
    await this.context.settle(this.readback.mapAsync(this.context.flags.MAP_MODE_READ));
    const [begin, end] = new BigUint64Array(this.readback.getMappedRange(), 0, 2);
    this.readback.unmap();
    return end > begin ? Number(end - begin) / 1e6 : undefined;
  }

  destroy(): void {
    this.querySet?.destroy();
    this.resolved?.destroy();
    this.readback?.destroy();
  }
}
