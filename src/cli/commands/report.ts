import type { Argv } from 'yargs';
import { PAPER_RECORD_OPTIONS } from '../../graph/lifetimes.ts';
import { UsageError } from '../errors.ts';

interface ReportArgs {
  target?: string;
  picture?: string[];
  out: string;
}

export function registerReport(cli: Argv): Argv {
  return cli.command<ReportArgs>(
    'report [target]',
    'Tables (Markdown, CSV, LaTeX) and charts of a run folder; or --picture <source> <planner>',
    (y) =>
      y
        .positional('target', { type: 'string', describe: 'a run folder: results/<experiment>/<run-id>' })
        .option('picture', { type: 'string', array: true, describe: 'draw the allocation picture of <source> <planner-id> instead' })
        .option('out', { type: 'string', default: 'results/pictures', describe: 'with --picture: where to write it' }) as unknown as Argv<ReportArgs>,
    async (args) => {
      if (args.picture !== undefined) {
        const [source, planner] = [...args.picture, ...(args.target ? [args.target] : [])];
        if (source === undefined || planner === undefined) throw new UsageError('--picture needs a source and a planner id: memplan report --picture zoo:deeplab-v3 offsets/greedy-by-size.');
        // The report layer loads vega: only the commands that draw load it (start-up stays fast).
        const { drawPicture } = await import('../../report/picture.ts');
        const base = await drawPicture(source, planner, args.out, PAPER_RECORD_OPTIONS);
        process.stdout.write(`${base}.svg\n${base}.png\n${base}.vl.json\n`);
        return;
      }
      if (args.target === undefined) throw new UsageError('give a run folder (results/<experiment>/<run-id>) or --picture <source> <planner>.');
      const { reportRun } = await import('../../report/run-report.ts');
      const { reportStudy, studyOfRun } = await import('../../report/study-reports.ts');
      await import('../../report/studies/index.ts');
      const study = await studyOfRun(args.target);
      const { markdown, files } = study ? await reportStudy(args.target, study.kind, study.info) : await reportRun(args.target);
      process.stdout.write(markdown);
      for (const file of files) process.stderr.write(`memplan: wrote ${file}\n`);
    },
  );
}
