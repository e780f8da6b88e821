import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { printable } from '../../io/printable.ts';
import { BUDGETED_PLANNERS, PLANNERS } from '../../planners/registry.ts';
import { UsageError } from '../errors.ts';
import { alignedTable } from '../format.ts';
import { TOKEN_ENV } from '../agent-token.ts';

interface ListArgs {
  what: 'planners' | 'models' | 'backends' | 'devices';
  json: boolean;
  url?: string;
  token?: string;
}

export function registerList(cli: Argv, text: CommandText): Argv {
  return cli.command<ListArgs>(
    text.usage,
    text.describe,
    (y) =>
      y
        .positional('what', { choices: ['planners', 'models', 'backends', 'devices'] as const, demandOption: true })
        .option('url', { type: 'string', describe: 'devices: the agent (memplan agent --devices), http://host:port' })
        .option('token', { type: 'string', describe: `devices: the agent's token (or set ${TOKEN_ENV})` })
        .option('json', { type: 'boolean', default: false }) as unknown as Argv<ListArgs>,
    async (args) => {
      if (args.what === 'devices') {
        await listDevices(args);
        return;
      }
      if (args.url !== undefined || args.token !== undefined) throw new UsageError('--url and --token go with list devices.');
      if (args.what === 'backends') {
        await listBackends(args.json);
        return;
      }
      if (args.what === 'models') {
        await listModels(args.json);
        return;
      }
      const planners = [...PLANNERS, ...BUDGETED_PLANNERS].map(({ id, approach, title, citation, complexity }) => ({ id, approach, title, citation, complexity }));
      if (args.json) {
        process.stdout.write(`${JSON.stringify(planners, null, 2)}\n`);
        return;
      }
      const rows = planners.map((p) => [p.id, p.title, p.complexity, p.citation]);
      process.stdout.write(`${alignedTable(['id', 'title', 'time', 'source'], rows)}\n`);
    },
  );
}

// Each listing imports what it lists when it runs: `list planners` starts without the zoo, the backends or the agent's client.
async function listModels(json: boolean): Promise<void> {
  const { ZOO } = await import('../../models/zoo.ts');
  const models = ZOO.map(({ name, title, reference, defaults, tunable }) => ({ name, source: `zoo:${name}`, title, reference, defaults, tunable }));
  if (json) {
    process.stdout.write(`${JSON.stringify(models, null, 2)}\n`);
    return;
  }
  // A language model's input is a sequence of token ids, an image model's a square of pixels.
  const input = (d: (typeof models)[number]['defaults']): string => (d.tokens === undefined ? `${d.inputSize}x${d.inputSize}` : `${d.tokens} tokens`);
  const rows = models.map((m) => [m.source, m.title, input(m.defaults), m.reference]);
  process.stdout.write(`${alignedTable(['source', 'title', 'input', 'reproduces'], rows)}\n`);
  process.stdout.write('parameters: zoo:<model>?input=160&width=0.5&batch=2&dtype=float16, transformers also tokens=N&layers=N (where the model allows them)\n');
}

/**
 * Where plans can run, each probed on this machine (the WebGPU probe starts Dawn and looks
 * for an adapter, which takes a moment); `remote` runs on a `memplan agent` elsewhere.
 */
async function listBackends(json: boolean): Promise<void> {
  const { BACKENDS, servedKinds } = await import('../../backends/registry.ts');
  const probed = await Promise.all(
    BACKENDS.map(async (backend) => {
      const { kind, title } = backend;
      try {
        return { kind, title, available: true, device: await backend.device() };
      } catch (error) {
        return { kind, title, available: false, reason: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  const backends = [
    ...probed,
    {
      kind: 'remote',
      title: `a \`memplan agent\` on another machine runs ${servedKinds().join(', ')} there, or a browser that joined it as a device (exec --backend remote --url --token [--device ID])`,
      available: null,
    },
    { kind: 'plan-only', title: 'experiments only: plan and verify, no execution (the default)', available: true },
  ];
  if (json) {
    process.stdout.write(`${JSON.stringify(backends, null, 2)}\n`);
    return;
  }
  const rows = backends.map((b) => [
    b.kind,
    b.title,
    'device' in b && b.device ? `yes: ${describeDevice(b.device)}` : 'reason' in b ? `no: ${b.reason}` : b.available === null ? 'ask the agent' : 'yes',
  ]);
  process.stdout.write(`${alignedTable(['kind', 'title', 'available here'], rows)}\n`);
}

function describeDevice(device: Readonly<Record<string, unknown>>): string {
  const parts = ['cpu', 'description', 'adapter', 'vendor', 'architecture', 'driver'].flatMap((key) => (typeof device[key] === 'string' && device[key] !== '' ? [String(device[key])] : []));
  return parts.length > 0 ? [...new Set(parts)].join(', ') : String(device.backend);
}

/** The browsers connected to an agent's device page, as its info says. */
async function listDevices(args: ListArgs): Promise<void> {
  const token = args.token ?? process.env[TOKEN_ENV];
  if (args.url === undefined || token === undefined || token === '') throw new UsageError(`list devices asks a memplan agent: give --url http://host:port and --token (or set ${TOKEN_ENV}).`);
  const { agentInfo } = await import('../../measuring/remote-executor.ts');
  const info = await agentInfo(args.url, token);
  if (info.devices === undefined) throw new UsageError(`the agent at ${args.url} serves no devices; start it with --devices.`);
  if (args.json) {
    process.stdout.write(`${JSON.stringify(info.devices, null, 2)}\n`);
    return;
  }
  if (info.devices.length === 0) {
    process.stdout.write('no device is connected; open the device page the agent printed in a browser.\n');
    return;
  }
  // Every field comes from the agent, and names and adapters from the devices: printable text only.
  const text = (value: unknown, max = 80): string => printable(String(value), max);
  const rows = info.devices.map((d) => [
    text(d.id),
    text(d.name),
    d.error === undefined ? text(d.adapter) : `no WebGPU: ${text(d.error, 200)}`,
    d.busy ? 'running a job' : 'idle',
    text(d.jobs),
    text(d.joinedAt),
    text(d.address),
  ]);
  process.stdout.write(`${alignedTable(['id', 'name', 'adapter', 'state', 'jobs', 'joined', 'from'], rows)}\n`);
}
