import type { TopLevelSpec } from 'vega-lite';

/** A vega-lite specification (what the spec builders return, what `<base>.vl.json` holds). */
export type VegaLiteSpec = TopLevelSpec;

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
