import type * as z from 'zod';
import { firstSchemaIssue } from '../io/schema-problem.ts';

/**
 * The sentence a wire message rejected by its schema (wire-schema.ts) gets, in the style the
 * agent has always answered in: the field named as the job names it (`run.seed`,
 * `tensor w1.data`, `node conv1 (Conv).kernel`, `graph.nodes[3]` while a node has no name),
 * then what the schema says of it (`must be ..., got <value>.`). Which issue is reported is
 * schema-problem.ts's choice, as for experiment files: an object's unknown field before what
 * is wrong inside it, unions followed into the branch meant.
 */

/** A schema message that starts with this is said of the object holding the field (`tensor w1 has shape ...`), not of the field. */
export const OF_OWNER = '{owner} ';

/** A value in a sentence: its JSON, cut at 40 characters; `nothing` where it is missing. */
export function short(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** What is checked: a job (its fields named `run.seed`, `graph.tensors[0]`), a graph alone (`graph.name`), or a value named `name`. */
export type WireRoot = 'job' | 'graph' | { readonly name: string };

/** The first problem of a failed parse of `root`, as one sentence. */
export function wireProblem(error: z.ZodError, root: unknown, where: WireRoot): string {
  const { path, issue } = firstSchemaIssue(error);
  const ofOwner = issue.message.startsWith(OF_OWNER);
  const named = ofOwner ? path.slice(0, -1) : path;
  return `${fieldName(named, root, where)} ${ofOwner ? issue.message.slice(OF_OWNER.length) : issue.message}`;
}

/** The message of the first problem, for schemas whose messages are whole sentences (the agent's answers, read in one place each). */
export function wholeSentence(error: z.ZodError): string {
  return firstSchemaIssue(error).issue.message;
}

type Scope = 'job' | 'graph' | 'tensors' | 'nodes' | 'node' | 'plain';

/** A node's own fields; its op's fields are named with the op: `node conv1 (Conv).kernel`. */
const NODE_OWN: ReadonlySet<PropertyKey> = new Set(['name', 'op', 'inputs', 'outputs']);

const nameOf = (value: unknown): string | undefined => {
  const name = value !== null && typeof value === 'object' ? (value as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
};

/**
 * The name of the value at `path` in `root`. A job's top fields go by their own names
 * (`records`, `run`, `graph`, `plan`), a tensor or node with a name by it, a node's op fields
 * with its op; everything else is its holder's name and `.key` or `[index]`.
 */
function fieldName(path: readonly PropertyKey[], root: unknown, where: WireRoot): string {
  let scope: Scope = where === 'job' ? 'job' : where === 'graph' ? 'graph' : 'plain';
  let name = where === 'job' ? 'the job' : where === 'graph' ? 'graph' : where.name;
  let value = root;
  for (const segment of path) {
    const holder = value;
    value = holder !== null && typeof holder === 'object' ? (holder as Record<PropertyKey, unknown>)[segment] : undefined;
    if ((scope === 'tensors' || scope === 'nodes') && typeof segment === 'number') {
      const item = nameOf(value);
      name = item === undefined ? `${name}[${segment}]` : `${scope === 'tensors' ? 'tensor' : 'node'} ${item}`;
      scope = scope === 'nodes' && item !== undefined ? 'node' : 'plain';
      continue;
    }
    if (scope === 'node' && !NODE_OWN.has(segment)) {
      name = `${name} (${String((holder as { op?: unknown }).op)}).${String(segment)}`;
    } else if (scope === 'job') {
      name = String(segment);
    } else {
      name = typeof segment === 'number' ? `${name}[${segment}]` : `${name}.${String(segment)}`;
    }
    scope = scope === 'job' && segment === 'graph' ? 'graph' : scope === 'graph' && segment === 'tensors' ? 'tensors' : scope === 'graph' && segment === 'nodes' ? 'nodes' : 'plain';
  }
  return name;
}
