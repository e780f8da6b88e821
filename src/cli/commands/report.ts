import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { ResultStore } from '../../experiments/result-store.ts';
import { PAPER_RECORD_OPTIONS } from '../../graph/lifetimes.ts';
import { UsageError } from '../errors.ts';

interface ReportArgs {
  target?: string;
  picture?: string[];
  out: string;
}

export function registerReport(cli: Argv, text: CommandText): Argv {
  return cli.command<ReportArgs>(
    text.usage,
    text.describe,
    (y) =>
      y
        .positional('target', { type: 'string', describe: 'a run folder (results/<experiment>/<run-id>), or an experiment folder (results/<experiment>): its latest run' })
        .option('picture', {
          type: 'string',
          array: true,
          describe: 'draw the allocation picture of <source> <planner> [<planner>...] instead (ids, or paths of modules of your own; several: side by side)',
        })
        .option('out', { type: 'string', default: 'results/pictures', describe: 'with --picture: where to write it' }) as unknown as Argv<ReportArgs>,
    async (args) => {
      if (args.picture !== undefined) {
        const [source, ...planners] = [...args.picture, ...(args.target ? [args.target] : [])];
        if (source === undefined || planners.length === 0) throw new UsageError('--picture needs a source and a planner id: memplan report --picture zoo:deeplab-v3 offsets/greedy-by-size.');
        // The report layer loads vega: only the commands that draw load it (start-up stays fast).
        const { drawPicture } = await import('../../report/picture.ts');
        const base = await drawPicture(source, planners, args.out, PAPER_RECORD_OPTIONS);
        process.stdout.write(`${base}.svg\n${base}.png\n${base}.pdf\n${base}.vl.json\n`);
        return;
      }
      if (args.target === undefined) throw new UsageError('give a run folder (results/<experiment>/<run-id>), an experiment folder (its latest run) or --picture <source> <planner>.');
      const target = await runFolder(args.target);
      // The folder is read before the reports' modules (the charts' vega among them) load:
      // a folder that is not a run is refused at once.
      const { reportStudy, studyOfRun } = await import('../../report/study-reports.ts');
      const study = await studyOfRun(target);
      let report: { markdown: string; files: string[] };
      if (study === undefined) report = await (await import('../../report/run-report.ts')).reportRun(target);
      else {
        await import('../../report/studies/index.ts');
        report = await reportStudy(target, study.kind, study.info);
      }
      const { markdown, files } = report;
      process.stdout.write(markdown);
      for (const file of files) process.stderr.write(`memplan: wrote ${file}\n`);
    },
  );
}

/**
 * The run a target names: the folder itself when it is a run (it has run.json), else the
 * latest run of the experiment folder it is, said on stderr.
 */
async function runFolder(target: string): Promise<string> {
  if (existsSync(join(target, 'run.json')) || !existsSync(target) || !statSync(target).isDirectory()) return target;
  // A shard or a merge is a run to report too (a user who ran one shard has only that).
  const latest = await ResultStore.latest(dirname(resolve(target)), basename(resolve(target)), '*');
  if (latest === undefined) return target;
  const run = join(target, basename(latest.dir));
  process.stderr.write(`memplan: reporting the latest run of ${target}: ${run}\n`);
  return run;
}
