import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The README's command groups (test/readme/<group>.test.ts): each runs a chain of commands for half a minute to a minute. */
const README_GROUP = /\/test\/readme\/(?!readme\.test\.ts$)[^/]+\.test\.ts$/;

/**
 * Vitest's order, with the README's command groups first. Where vitest has timed no run
 * before (a clean clone: CI) it starts the largest files first, and each group's file is
 * four lines: the longest chains of the suite started last, and one core waited on the
 * other at the end. Started first, they share the cores with everything else.
 */
export default class ReadmeFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (spec: TestSpecification): boolean => README_GROUP.test(spec.moduleId);
    return [...sorted.filter(first), ...sorted.filter((spec) => !first(spec))];
  }
}
