import * as z from 'zod';
import { experimentSchema, fields, say } from '../experiment-schema.ts';

/**
 * What the three study files' schemas share: the fields every study file has, the numbers
 * their figures are, and the check that turns a schema's first problem into the one sentence
 * a user reads (../file-check.ts). Each study's schema (`*-schema.ts`) states its file's shape; its config module
 * then checks what the schema cannot say (one field against another, duplicates, sizes and
 * speeds) and fills the defaults.
 */

/** The name rule of experiment files (it names a results folder), from their schema. */
export function resultsName() {
  return experimentSchema().shape.name;
}

/** A study file: `$schema` and `$comment` as an experiment file has them, `study` naming the study, then its own fields. */
export function studyFields<const K extends string, T extends z.ZodRawShape>(study: K, shape: T) {
  const { $schema, $comment } = experimentSchema().shape;
  return fields({
    $schema,
    $comment: $comment.meta({ description: 'A note for readers (what the study runs, how long it takes); memplan ignores it.' }),
    study: z.literal(study, say(`must be "${study}".`)).meta({ description: `Names the study: "${study}" (memplan run sends the file to it).` }),
    ...shape,
  });
}

/** A figure greater than 0 (a time, a size, a percentage), finite. */
export const positive = (sentence = 'must be a number > 0.') => z.number(say(sentence)).positive(say(sentence));

/** A figure of 0 or more, finite. */
export const nonNegative = () => z.number(say('must be a number >= 0.')).min(0, say('must be a number >= 0.'));
