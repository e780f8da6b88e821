import type { RecordOptions } from './lifetimes.ts';

/** What kind of value a record option takes. */
export type RecordOptionKind = 'boolean' | 'size' | 'order' | 'schedule';

/**
 * The one table of record options (RecordOptions' fields) and the kind of value each takes:
 * the experiment file's schema (experiments/experiment-schema.ts) and the agent's job
 * schema (agent/wire-schema.ts) both read it, so a new option is added here once.
 */
export const RECORD_OPTION_FIELDS: Readonly<Record<keyof RecordOptions, RecordOptionKind>> = {
  includeGraphIO: 'boolean',
  elementSize: 'size',
  roundChannelsTo4: 'boolean',
  nhwc: 'boolean',
  fuseActivations: 'boolean',
  dropIdentityOps: 'boolean',
  order: 'order',
  schedule: 'schedule',
  scratch: 'boolean',
  threads: 'size',
};
