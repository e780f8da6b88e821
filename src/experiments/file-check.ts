import type * as z from 'zod';
import { firstSchemaProblem } from '../io/schema-problem.ts';
import { ExperimentError } from './experiment-error.ts';

/** Stops the parse of an experiment or study file: the file, the JSON path of the field, one sentence. */
export type Fail = (path: string, problem: string) => never;

export function failIn(file: string): Fail {
  return (path, problem) => {
    throw new ExperimentError(`${file}: ${path}: ${problem}`);
  };
}

/** An experiment or study file as its schema reads it, or the ExperimentError naming its first problem. */
export function checkFile<T extends z.ZodType>(schema: T, data: unknown, file: string): z.output<T> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const { path, problem } = firstSchemaProblem(parsed.error);
  return failIn(file)(path, problem);
}
