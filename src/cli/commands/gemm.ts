import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { GemmShapeError } from '../../backends/gemm/gemm-shape.ts';
import { peerMatMul } from '../../measuring/gemm/peer-matmul.ts';
import { runGemm, type GemmReport } from '../../measuring/gemm/run-gemm.ts';
import { formatByteSize, parseByteSize } from '../../io/byte-size.ts';
import { parseStorageBandwidth, type StorageBandwidth } from '../../io/storage-bandwidth.ts';
import type { StatedSpeeds } from '../../io/storage-device.ts';
import { UsageError } from '../errors.ts';
import { mib } from '../format.ts';

interface GemmArgs {
  n: number;
  tile: number;
  budget: string;
  dir?: string;
  scheduler: 'dynamic' | 'planned';
  'direct-io'?: boolean;
  'storage-bandwidth'?: string;
  'storage-write-bandwidth'?: string;
  seed: number;
  peer: boolean;
  json: boolean;
}

export function registerGemm(cli: Argv, text: CommandText): Argv {
  return cli.command<GemmArgs>(
    text.usage,
    text.describe,
    (y) =>
      y
        .option('n', { type: 'number', default: 4096, describe: 'matrix size (n x n, float32)' })
        .option('tile', { type: 'number', default: 512, describe: 'tile size (a multiple of 32 that divides n); n = untiled' })
        .option('budget', { type: 'string', default: '4MiB', describe: 'most tile bytes resident at once (e.g. 4MiB, 256MiB)' })
        .option('dir', { type: 'string', describe: 'where A, B and C live (default: a folder under the temporary directory, reused)' })
        .option('scheduler', {
          choices: ['dynamic', 'planned'] as const,
          default: 'planned' as const,
          describe: "dynamic: the authors' (fewest new bytes first, LRU); planned: tile residencies planned by Greedy by Size",
        })
        .option('direct-io', { type: 'boolean', describe: 'bypass the page cache (O_DIRECT); default: where the file system takes it' })
        .option('storage-bandwidth', {
          type: 'string',
          describe: "hold tile reads (and writes) to a stated device's speed, per second (e.g. 400MB: the Odroid-XU4 eMMC's HS400 ceiling); default: this machine's storage as it is",
        })
        .option('storage-write-bandwidth', { type: 'string', describe: "the stated device's write speed, when it differs from --storage-bandwidth (flash writes slower than it reads)" })
        .option('seed', { type: 'number', default: 1, describe: 'seed of A and B' })
        .option('peer', { type: 'boolean', default: false, describe: "also time onnxruntime-node's MatMul (one thread, in memory) on the same n" })
        .option('json', { type: 'boolean', default: false }) as unknown as Argv<GemmArgs>,
    async (args) => {
      let budget: number;
      try {
        budget = parseByteSize(args.budget);
      } catch (error) {
        throw new UsageError(`--budget: ${(error as Error).message}`);
      }
      if (!Number.isSafeInteger(args.seed) || args.seed < 0) throw new UsageError(`--seed must be a whole number >= 0, got ${args.seed}.`);
      const storage = statedSpeeds(args['storage-bandwidth'], args['storage-write-bandwidth']);
      let report: GemmReport;
      try {
        report = await runGemm({ n: args.n, tile: args.tile, budget, scheduler: args.scheduler, dir: args.dir, directIo: args['direct-io'] ?? 'auto', seed: args.seed, storage });
      } catch (error) {
        if (error instanceof GemmShapeError) throw new UsageError(error.message);
        throw error;
      }
      const peer = args.peer ? await peerMatMul(args.n, args.seed) : undefined;
      const full = peer ? { ...report, peer: { ...peer, ratio: report.gflops.compute / peer.gflops } } : report;
      if (args.json) {
        process.stdout.write(`${JSON.stringify(full)}\n`);
      } else {
        const r = report;
        const lines = [
          `gemm        ${r.n} x ${r.n} float32, tiles of ${r.tile} (${r.n / r.tile} a side), budget ${formatByteSize(r.budget)}, ${r.scheduler} scheduler: ${r.policy}`,
          `time        ${(r.wallMs / 1000).toFixed(2)} s: products ${(r.computeMs / 1000).toFixed(2)} s (${r.gflops.compute.toFixed(1)} GFLOP/s), waiting for I/O ${(r.stallMs / 1000).toFixed(2)} s`,
          `I/O         read ${mib(r.io.bytesRead)} MiB (${r.io.tileLoads} tiles), written ${mib(r.io.bytesWritten)} MiB (${r.io.tileWrites} tiles)${r.directIo ? ', O_DIRECT' : ', through the page cache'}`,
          `storage     ${storageLine(r)}`,
          `tiles       at most ${mib(r.tiles.residentHighWater)} MiB resident (checked at every load) in a ${mib(r.tiles.arenaBytes)} MiB arena`,
          `memory      peak ${mib(r.memory.peakRss)} MiB, baseline ${mib(r.memory.baselineRss)} MiB: ${mib(r.memory.peakRssDelta)} MiB for the GEMM, measured in an isolated process`,
          `check       ${r.check.within ? 'C is correct' : 'C is WRONG'}: ${r.check.kind === 'full' ? 'every entry against a float64 product' : `${r.check.entries} random entries recomputed in float64`}, error ${r.check.maxError.toExponential(2)} (at most ${r.check.tolerance})`,
        ];
        if (peer) lines.push(`peer        ${peer.runtime} MatMul in memory: ${peer.gflops.toFixed(1)} GFLOP/s; ours/peer ${(report.gflops.compute / peer.gflops).toFixed(2)}`);
        lines.push(`files       A, B and C (${formatByteSize(r.files.bytes)}) left in ${r.files.dir} for the next run of this size and seed; remove it when done`);
        process.stdout.write(`${lines.join('\n')}\n`);
      }
      if (!report.check.within) process.exitCode = 1;
    },
  );
}

/** The stated device of --storage-bandwidth and --storage-write-bandwidth (writes at the read speed unless stated), or none. */
function statedSpeeds(read: string | undefined, write: string | undefined): StatedSpeeds | undefined {
  if (read === undefined && write === undefined) return undefined;
  if (read === undefined) throw new UsageError("--storage-write-bandwidth needs --storage-bandwidth: state the device's read speed too.");
  const parse = (option: string, value: string): StorageBandwidth => {
    try {
      return parseStorageBandwidth(value);
    } catch (error) {
      throw new UsageError(`--${option}: ${(error as Error).message}`);
    }
  };
  const reads = parse('storage-bandwidth', read);
  return { read: reads, write: write === undefined ? reads : parse('storage-write-bandwidth', write) };
}

function storageLine(r: GemmReport): string {
  const { read, write, heldMs } = r.storage;
  if (read === null || write === null) return "this machine's own speed (no stated device)";
  const device = (r.io.bytesRead / read.bytesPerSecond + r.io.bytesWritten / write.bytesPerSecond).toFixed(2);
  return `held to ${read.label} for reads, ${write.label} for writes: ${device} s of device time, ${((heldMs ?? 0) / 1000).toFixed(2)} s held past the real transfers`;
}
