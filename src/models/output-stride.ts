/**
 * TF-slim's output stride: once the feature map is `outputStride` times smaller than the
 * input, later strides become dilations (atrous convolution), as DeepLab and PoseNet use
 * their backbones. `next(stride)` gives the stride and dilation a layer actually uses.
 */
export class OutputStride {
  private current: number;
  private rate = 1;

  constructor(
    private readonly outputStride: number | undefined,
    alreadyStrided: number,
  ) {
    this.current = alreadyStrided;
  }

  next(stride: number): { stride: number; dilation: number } {
    if (this.outputStride !== undefined && this.current === this.outputStride) {
      const dilation = this.rate;
      this.rate *= stride;
      return { stride: 1, dilation };
    }
    this.current *= stride;
    return { stride, dilation: 1 };
  }
}
