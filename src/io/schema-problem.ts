import type * as z from 'zod';

/** The first thing wrong with a value a schema rejected: where (a JSON path, `$.models[0].label`) and what. */
export interface SchemaProblem {
  readonly path: string;
  readonly problem: string;
}

/** `$` then `.key` and `[index]` segments: the form every file error of this project names a field in. */
export function jsonPath(segments: readonly PropertyKey[]): string {
  return segments.reduce<string>((path, s) => (typeof s === 'number' ? `${path}[${s}]` : `${path}.${String(s)}`), '$');
}

type Issue = z.core.$ZodIssue;

/**
 * Of a union's branches, the one the value was meant for: not a branch that wanted another
 * type at the value itself (a string where an object was given), and of the rest the one that
 * got furthest into the value. Its issues name the field at fault, as a hand check would.
 * None when the value is of no branch's type: the union's own message says what it takes.
 */
function closestBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const depth = (issues: readonly Issue[]): number => Math.max(...issues.map((i) => i.path.length));
  const meant = branches.filter((issues) => issues.length > 0 && !issues.every((i) => i.code === 'invalid_type' && i.path.length === 0));
  return meant.length === 0 ? undefined : meant.reduce((best, issues) => (depth(issues) > depth(best) ? issues : best));
}

/**
 * The issue a hand check meets first: the first one, unless an object around it holds a field
 * it does not take. Such a check looks for unknown fields before reading an object's own, so a
 * misspelt required field is named as unknown (with the fields expected), not as missing; zod
 * lists unknown fields after the object's own issues.
 */
function firstIssue(issues: readonly Issue[]): Issue {
  const first = issues[0];
  const around = (issue: Issue): boolean => issue.code === 'unrecognized_keys' && issue.path.length <= first.path.length && issue.path.every((s, k) => s === first.path[k]);
  const outermost = issues.filter(around).sort((a, b) => a.path.length - b.path.length)[0];
  return outermost ?? first;
}

/**
 * The issue of a failed parse a hand check would report, with its whole path: unions are
 * followed into the branch the value was meant for, and an object's unknown field comes before
 * what is wrong inside it. The path is the issue's own (an unknown field's names the object).
 */
export function firstSchemaIssue(error: z.ZodError): { readonly path: readonly PropertyKey[]; readonly issue: Issue } {
  let issues: readonly Issue[] = error.issues;
  let path: PropertyKey[] = [];
  for (;;) {
    const issue = firstIssue(issues);
    const branch = issue.code === 'invalid_union' && !('note' in issue && issue.note !== undefined) ? closestBranch(issue.errors) : undefined;
    if (branch === undefined) return { path: [...path, ...issue.path], issue };
    path = [...path, ...issue.path];
    issues = branch;
  }
}

/**
 * The first issue of a failed parse as one problem. Unions are followed into the branch the
 * value was meant for; an unknown field is named in the path (the object's error message
 * says which fields it takes). Messages are the schema's own (every schema of this project
 * states its sentences), so the text is the same as a hand-written check gave.
 */
export function firstSchemaProblem(error: z.ZodError, prefix: readonly PropertyKey[] = []): SchemaProblem {
  const { path, issue } = firstSchemaIssue(error);
  const at = [...prefix, ...path, ...(issue.code === 'unrecognized_keys' ? [issue.keys[0]] : [])];
  return { path: jsonPath(at), problem: issue.message };
}
