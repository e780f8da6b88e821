import type { Graph } from '../graph/ir.ts';
import { nhwcConversion } from '../graph/to-nhwc.ts';

/** How an NCHW network (an ONNX file's) ran: laid out NHWC, or as read and why. */
export interface RanLayout {
  readonly source: 'NCHW';
  readonly ran: 'NHWC' | 'NCHW';
  /** Why it stayed NCHW where the backend runs NHWC: the node that does not convert. */
  readonly why?: string;
}

/**
 * What `exec` says of the layout: nothing for an NHWC network; for an NCHW one, whether the
 * run laid it out NHWC (the CPU executors do, and `--nhwc` asks) or kept it, and why where
 * it could not: a network kept NCHW runs its convolutions on the slower general kernels.
 */
export function ranLayout(source: Graph, nhwc: boolean): RanLayout | undefined {
  if (source.layout !== 'NCHW') return undefined;
  if (!nhwc) return { source: 'NCHW', ran: 'NCHW' };
  const { refusal } = nhwcConversion(source);
  return refusal === undefined ? { source: 'NCHW', ran: 'NHWC' } : { source: 'NCHW', ran: 'NCHW', why: refusal };
}

/** The layout line of exec's text report. */
export function layoutLine(layout: RanLayout): string {
  if (layout.ran === 'NHWC') return 'NCHW as read, run laid out NHWC';
  return layout.why === undefined ? 'NCHW as read, run so' : `NCHW as read, run so (slower kernels): ${layout.why}`;
}
