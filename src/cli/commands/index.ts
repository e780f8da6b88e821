import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';

/** Adds a command, its options and its handler to the command line. */
type Register = (cli: Argv, text: CommandText) => Argv;

interface CommandEntry extends CommandText {
  readonly name: string;
  /** The command's module, imported only when the command line names it (start-up loads nothing else). */
  readonly load: () => Promise<Register>;
}

/**
 * Every command, in the order `memplan --help` lists them. Their texts live here so that
 * the listing needs no command's module: a command loads its own dependencies (planners,
 * backends, charts, the browser driver) only when it is the one that runs.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'plan',
    usage: 'plan <source>',
    describe: 'Plan a problem with one or more strategies; every plan is verified before it is shown',
    load: async () => (await import('./plan.ts')).registerPlan,
  },
  {
    name: 'verify',
    usage: 'verify <file>',
    describe: "Check a plan made elsewhere (MiniMalloc's CSV with offsets, or records JSON with an offset each) with the independent verifier",
    load: async () => (await import('./verify.ts')).registerVerify,
  },
  {
    name: 'list',
    usage: 'list <what>',
    describe: 'List what this build knows: planners, models, backends; or the devices connected to an agent',
    load: async () => (await import('./list.ts')).registerList,
  },
  {
    name: 'export',
    usage: 'export <source>',
    describe: 'Write a source as usage records (.csv, .json), as an ONNX model (.onnx), or a plan of it as a Perfetto trace (--format perfetto)',
    load: async () => (await import('./export.ts')).registerExport,
  },
  {
    name: 'run',
    usage: 'run <experiment>',
    describe: 'Run an experiment file: every (model, planner, backend) cell, every plan verified',
    load: async () => (await import('./run.ts')).registerRun,
  },
  {
    name: 'merge',
    usage: 'merge <runs..>',
    describe: 'Join the run folders of a sharded sweep (memplan run --shard I/N) into one run that memplan report reads',
    load: async () => (await import('./merge.ts')).registerMerge,
  },
  {
    name: 'report',
    usage: 'report [target]',
    describe: 'Tables (Markdown, CSV, LaTeX) and charts of a run folder; or --picture <source> <planner>',
    load: async () => (await import('./report.ts')).registerReport,
  },
  {
    name: 'reproduce',
    usage: 'reproduce',
    describe: "Run Table 1 and Table 2 and the tie-order study, evaluate the paper's claims, render tables and charts",
    load: async () => (await import('./reproduce.ts')).registerReproduce,
  },
  {
    name: 'exec',
    usage: 'exec <source>',
    describe: 'Run a network inside a verified plan: latency, peak memory, and outputs checked against the naive plan',
    load: async () => (await import('./exec.ts')).registerExec,
  },
  {
    name: 'agent',
    usage: 'agent',
    describe: 'Serve this machine as a remote device: run jobs (network + verified plan) sent by `memplan exec --backend remote` or an experiment',
    load: async () => (await import('./agent.ts')).registerAgent,
  },
  {
    name: 'gemm',
    usage: 'gemm',
    describe: 'Out-of-core GEMM under a memory budget: C = A B from tile files, resident tiles at or under the budget, measured alone',
    load: async () => (await import('./gemm.ts')).registerGemm,
  },
];

/**
 * The command line with every command on it: the one `argv` names in full (its module
 * loaded), the others by their texts alone, for the listing and for yargs to know them.
 */
export async function withCommands(cli: Argv, argv: readonly string[]): Promise<Argv> {
  const named = argv.find((arg) => !arg.startsWith('-'));
  let out = cli;
  for (const entry of COMMANDS) {
    out = entry.name === named ? (await entry.load())(out, entry) : out.command(entry.usage, entry.describe);
  }
  return out;
}
