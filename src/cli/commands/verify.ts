import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { lowerBounds } from '../../core/bounds.ts';
import { offsetsPlan } from '../../core/plans.ts';
import { verifyPlan } from '../../core/verify.ts';
import { loadPlacedPlan, PLACED_PLAN_FORMATS } from '../../io/placed-plan.ts';
import { parseAlignment } from '../alignment-option.ts';
import { mib } from '../format.ts';

interface VerifyArgs {
  file: string;
  align: number;
  json: boolean;
}

/**
 * `memplan verify FILE`: a plan someone else's allocator made (MiniMalloc writes its
 * solutions as its input CSV with an offset column; TFLite, XLA, ExecuTorch and TVM dump
 * offsets that convert to it), checked by the same verifier every plan of ours passes:
 * its footprint, its ratio to both lower bounds, and the first violation found (for two
 * records that share bytes while both are live: which, and where). Exit 0 when valid, 1
 * when not, 2 when the file cannot be read as a plan.
 */
export function registerVerify(cli: Argv, text: CommandText): Argv {
  return cli.command<VerifyArgs>(
    text.usage,
    text.describe,
    (y) =>
      y
        .positional('file', { type: 'string', demandOption: true, describe: PLACED_PLAN_FORMATS })
        .option('align', { type: 'number', default: 1, describe: 'every offset must be a multiple of this many bytes (a power of two)' })
        .option('json', { type: 'boolean', default: false, describe: 'print one JSON object' }) as unknown as Argv<VerifyArgs>,
    async (args) => {
      const alignment = parseAlignment(args.align);
      const { problem, offsets } = await loadPlacedPlan(args.file);
      const plan = offsetsPlan(problem, offsets);
      const verification = verifyPlan(problem, plan, { alignment });
      const bounds = lowerBounds(problem);
      const ratio = (bound: number): number | null => (bound > 0 ? plan.footprint / bound : null);
      const report = {
        file: args.file,
        records: problem.records.length,
        operators: problem.operatorCount,
        alignment,
        valid: verification.valid,
        footprint: plan.footprint,
        lowerBounds: { offsets: bounds.offsets, sharedObjects: bounds.sharedObjects },
        ratioToLowerBound: { offsets: ratio(bounds.offsets), sharedObjects: ratio(bounds.sharedObjects) },
        violations: verification.violations.map((v) => ({ kind: v.kind, message: v.message })),
      };
      if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
      else {
        const times = (r: number | null): string => (r === null ? 'no bound' : r.toFixed(4));
        process.stdout.write(
          [
            `${args.file}: ${problem.records.length} records over ${problem.operatorCount} operators, offsets at multiples of ${alignment} B`,
            `footprint: ${plan.footprint} bytes (${mib(plan.footprint)} MiB)`,
            `lower bounds: offsets ${bounds.offsets} bytes (footprint / bound ${times(report.ratioToLowerBound.offsets)}), shared objects ${bounds.sharedObjects} bytes (${times(report.ratioToLowerBound.sharedObjects)})`,
            verification.valid
              ? 'valid: no two records live at once share a byte'
              : `INVALID: ${verification.violations[0].message}${verification.violations.length > 1 ? ` (and ${verification.violations.length - 1} more violation${verification.violations.length > 2 ? 's' : ''}${verification.violations.length >= 20 ? ' at least' : ''})` : ''}`,
          ].join('\n') + '\n',
        );
      }
      if (!verification.valid) process.exitCode = 1;
    },
  );
}
