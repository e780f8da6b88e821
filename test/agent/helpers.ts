import { request } from 'node:http';
import { encodeJob, wirePlan, type JobRequest, type WireRunOptions } from '../../src/agent/wire.ts';
import { weightedGraph } from '../../src/backends/run-data.ts';
import type { Graph, Node, Tensor } from '../../src/graph/ir.ts';
import { graphToProblem, type RecordOptions } from '../../src/graph/lifetimes.ts';
import { findBackend } from '../../src/backends/registry.ts';
import { execute } from '../../src/measuring/execute.ts';
import type { ExecuteOptions } from '../../src/measuring/execute-options.ts';
import type { ExecuteReport } from '../../src/backends/execution-report.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';

export const TOKEN = 'test-token-0123456789abcdef';

/** A four-op network (conv, relu, conv, add with a skip) that runs in a millisecond. */
export function tinyGraph(): Graph {
  const t = (name: string, shape: number[], constant = false): [string, Tensor] => [name, { name, shape, dtype: 'float32', constant }];
  const conv = (name: string, input: string, weights: string, bias: string, output: string): Node => ({
    name,
    op: 'Conv',
    kernel: [3, 3],
    strides: [1, 1],
    dilations: [1, 1],
    padding: { kind: 'same' },
    groups: 1,
    outChannels: 8,
    weightLayout: 'OHWI',
    activation: 'none',
    inputs: [input, weights, bias],
    outputs: [output],
  });
  return {
    name: 'tiny',
    layout: 'NHWC',
    tensors: new Map([
      t('x', [1, 8, 8, 4]),
      t('w1', [8, 3, 3, 4], true),
      t('b1', [8], true),
      t('a', [1, 8, 8, 8]),
      t('b', [1, 8, 8, 8]),
      t('w2', [8, 3, 3, 8], true),
      t('b2', [8], true),
      t('c', [1, 8, 8, 8]),
      t('y', [1, 8, 8, 8]),
    ]),
    nodes: [
      conv('conv1', 'x', 'w1', 'b1', 'a'),
      { name: 'relu', op: 'Relu', inputs: ['a'], outputs: ['b'] },
      conv('conv2', 'b', 'w2', 'b2', 'c'),
      { name: 'add', op: 'Add', activation: 'none', inputs: ['c', 'a'], outputs: ['y'] },
    ],
    inputs: ['x'],
    outputs: ['y'],
  };
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly json: { error?: string; [key: string]: unknown } | undefined;
}

/**
 * A plain HTTP exchange with the agent, as any client (curl) would make it. `body` as a
 * string or Buffer; `chunks` sends it chunked (no Content-Length); `declaredLength` lies
 * about the size. Errors after the answer (the agent cutting an unread upload) are ignored.
 */
export function raw(
  url: string,
  path: string,
  options: { method?: string; token?: string | null; body?: string | Buffer; chunked?: boolean; headers?: Record<string, string | number>; signal?: AbortSignal } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const token = options.token === undefined ? TOKEN : options.token;
    const req = request(new URL(path, url), {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      agent: false,
      signal: options.signal,
      headers: {
        ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(body !== undefined && !options.chunked ? { 'Content-Length': body.length } : {}),
        ...options.headers,
      },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', () => {});
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (body === undefined) {
      req.end();
    } else if (options.chunked) {
      // Several writes: the agent counts what arrives, whatever the headers say.
      const step = 64 * 1024;
      for (let at = 0; at < body.length; at += step) req.write(body.subarray(at, at + step));
      req.end();
    } else {
      req.end(body);
    }
  });
}

/** Polls `check` every 20 ms until it holds or `ms` passes. */
export async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A job as the client builds it (seeded weights, a verified plan), as a parsed object to tamper with. */
export function jobRequest(source: Graph, planner = 'offsets/greedy-by-size', run: Partial<WireRunOptions> = {}, alignment = 64, records: RecordOptions = {}): JobRequest {
  const graph = weightedGraph(source, 'seeded', 1);
  // The backend's own records: its kernels' scratch where it plans it (as buildJob does).
  const planned: RecordOptions = { ...records, ...(findBackend(run.backend ?? 'cpu').plansScratch ? { scratch: true } : {}) };
  const problem = graphToProblem(graph, { ...planned, elementSize: 4 });
  const verified = planAndVerify(findPlanner(planner), problem, { alignment });
  const plan = wirePlan(verified, problem, alignment);
  return JSON.parse(encodeJob({ graph, records: planned, plan, run: { backend: 'cpu', repetitions: 2, warmup: 1, seed: 1, verifyByExecution: true, ...run } }));
}

/**
 * A job placed on an agent, its options written as a client of the agent thinks of them: the
 * agent, the kind of its backend (default cpu; browser with a device) and the job.
 */
export function onAgent(
  graph: Graph,
  options: Omit<ExecuteOptions, 'backend'> & { readonly url: string; readonly token: string; readonly backend?: string; readonly device?: string; readonly timeoutSeconds?: number },
): Promise<ExecuteReport> {
  const { url, token, backend, device, timeoutSeconds, ...job } = options;
  const placement = { on: 'agent' as const, url, token, ...(device === undefined ? {} : { device }), ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) };
  return execute(graph, { ...job, backend: findBackend(backend ?? (device === undefined ? 'cpu' : 'browser')) }, placement);
}
