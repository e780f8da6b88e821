import * as z from 'zod';
import { experimentSchema } from './experiment-schema.ts';
import { flexnnBudgetSchema } from './studies/flexnn-budget-schema.ts';
import { gemmTilingSchema } from './studies/gemm-tiling-schema.ts';
import { parallelGroupsSchema } from './studies/parallel-groups-schema.ts';

/**
 * The JSON Schema editors read (experiments/schema.json, named by every file there as
 * "$schema": "./schema.json"): an experiment file or one of the study files, each from the
 * zod schema its parser checks with, so the two cannot drift (`npm run schema` writes it; a
 * test holds the committed file to this).
 */
export function experimentFilesJsonSchema(): Record<string, unknown> {
  const any = z.union([experimentSchema(), gemmTilingSchema(), flexnnBudgetSchema(), parallelGroupsSchema()]);
  return {
    ...z.toJSONSchema(any, { io: 'input', unrepresentable: 'any' }),
    title: 'memplan-bench experiment file',
    description: 'An experiment (networks, planners, backends, record options and report) or a study (a "study" field: gemm-tiling, flexnn-budget or parallel-groups), as memplan run FILE reads it.',
  };
}
