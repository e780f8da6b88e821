import { networkInterfaces } from 'node:os';
import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { servedKinds } from '../../backends/registry.ts';
import { MIN_TOKEN_LENGTH, startAgent } from '../../agent/agent.ts';
import { TOKEN_ENV } from '../agent-token.ts';
import { UsageError } from '../errors.ts';

interface AgentArgs {
  listen: string;
  token?: string;
  backends: string;
  maxJobMb: number;
  maxRunSeconds: number;
  quiet: boolean;
  devices: boolean;
}

/** The environment variable the token may come from instead of --token (keeps it out of `ps`). */

/** `HOST:PORT`, `[v6]:PORT` or `PORT` (on 127.0.0.1). */
export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d+)$/.exec(listen) ?? /^()()(\d+)$/.exec(listen);
  const port = match === null ? NaN : Number(match[3]);
  if (match === null || !Number.isSafeInteger(port) || port > 65535) {
    throw new UsageError(`--listen must be HOST:PORT (e.g. 127.0.0.1:7878, 0.0.0.0:7878 or [::1]:7878), got ${JSON.stringify(listen)}.`);
  }
  return { host: match[1] || match[2] || '127.0.0.1', port };
}

const LOOPBACK = /^(127\.|::1$|localhost$)/;

export function registerAgent(cli: Argv, text: CommandText): Argv {
  return cli.command<AgentArgs>(
    text.usage,
    text.describe,
    (y) =>
      y
        .option('listen', { type: 'string', default: '127.0.0.1:7878', describe: 'HOST:PORT to listen on (0.0.0.0:PORT for every interface; port 0 picks a free one)' })
        .option('token', { type: 'string', describe: `shared secret clients send, at least ${MIN_TOKEN_LENGTH} characters (or set ${TOKEN_ENV})` })
        .option('backends', { type: 'string', default: 'cpu', describe: `backends to serve, comma-separated (${servedKinds().join(',')})` })
        .option('max-job-mb', {
          type: 'number',
          default: 256,
          describe:
            'largest job body accepted (MiB); a larger one gets 413 before it is read. The agent holds at most twice this in bodies at once, one body per client (more wait, unread), and hands each to its job process unparsed',
        })
        .option('max-run-seconds', { type: 'number', default: 600, describe: 'a job running longer is stopped and answered with 504' })
        .option('devices', {
          type: 'boolean',
          default: false,
          describe: 'also serve the device page (/device): browsers that open it with the printed pairing code join as devices (exec --backend remote --device ID)',
        })
        .option('quiet', { type: 'boolean', default: false, describe: 'no line per job' }) as unknown as Argv<AgentArgs>,
    async (args) => {
      const token = args.token ?? process.env[TOKEN_ENV];
      if (token === undefined || token === '') throw new UsageError(`the agent needs a token: give --token or set ${TOKEN_ENV}.`);
      if (token.length < MIN_TOKEN_LENGTH) throw new UsageError(`the token must be at least ${MIN_TOKEN_LENGTH} characters long; it has ${token.length}.`);
      const { host, port } = parseListen(args.listen);
      if (!(args.maxJobMb > 0) || !Number.isFinite(args.maxJobMb)) throw new UsageError(`--max-job-mb must be a number > 0, got ${args.maxJobMb}.`);
      if (!(args.maxRunSeconds > 0) || !Number.isFinite(args.maxRunSeconds)) throw new UsageError(`--max-run-seconds must be a number > 0, got ${args.maxRunSeconds}.`);
      const backends = args.backends
        .split(',')
        .map((kind) => kind.trim())
        .filter((kind) => kind !== '');
      if (backends.length === 0) throw new UsageError('--backends names no backend.');

      let agent;
      try {
        agent = await startAgent({
          host,
          port,
          token,
          backends,
          maxJobBytes: Math.floor(args.maxJobMb * 2 ** 20),
          maxRunSeconds: args.maxRunSeconds,
          log: args.quiet ? undefined : (line) => process.stderr.write(`memplan agent: ${line}\n`),
          devices: args.devices,
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new UsageError(`${args.listen} is already in use; pick another port with --listen.`);
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${args.listen}: this machine has no such address.`);
        if (code === 'EACCES') throw new UsageError(`cannot listen on ${args.listen}: permission denied (ports below 1024 need privileges).`);
        throw error;
      }
      process.stdout.write(`memplan agent listening on ${agent.url} (backends ${backends.join(', ')}; jobs up to ${args.maxJobMb} MiB and ${args.maxRunSeconds} s)\n`);
      if (agent.hub !== undefined) {
        const code = agent.hub.pairingCode;
        const pages = pageUrls(agent.host, agent.port).map((url) => `  ${url}/device#code=${code}`);
        process.stdout.write(`device page (pairing code ${code}); open it in a browser to join as a device:\n${pages.join('\n')}\n`);
        if (!LOOPBACK.test(agent.host)) {
          process.stdout.write(
            'browsers offer WebGPU only to https pages and http://localhost: on a phone, forward the port (adb reverse tcp:PORT tcp:PORT) and open http://localhost:PORT/device, or list the address above under chrome://flags/#unsafely-treat-insecure-origin-as-secure.\n',
          );
        }
      }
      if (!LOOPBACK.test(agent.host)) {
        process.stderr.write('memplan agent: plain HTTP: the token and the jobs cross the network unencrypted; use a trusted network or an SSH tunnel.\n');
      }
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          process.stderr.write(`memplan agent: ${signal}, stopping.\n`);
          void agent.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    },
  );
}

/** Addresses a browser can reach the agent at: its own, or each of this machine's when it listens on every interface. */
function pageUrls(host: string, port: number): string[] {
  const format = (address: string): string => `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  if (host !== '0.0.0.0' && host !== '::') return [format(host)];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && (host === '::' || a.family === 'IPv4'))
    .map((a) => a!.address);
  return [format('127.0.0.1'), ...addresses.map(format)];
}
