import { UsageError } from './errors.ts';

/** The runtimes `exec --peer` times beside ours: onnxruntime-node (native) and onnxruntime-web's WebAssembly build. */
export interface PeerChoice {
  readonly node: boolean;
  readonly web: boolean;
}

const NAMES = ['node', 'web'] as const;

/**
 * `--peer` times both peers; `--peers node`, `--peers web` or `--peers node,web` times those
 * (and implies --peer). One alone is for a run that reads only its ratio: onnxruntime-web's
 * process compiles its 14 MB of WebAssembly with V8's optimizing tier before it runs (9-12 s
 * of CPU), which a comparison against the native runtime alone does not need.
 */
export function peerChoice(peer: boolean, peers: unknown): PeerChoice {
  if (peers === undefined) return { node: peer, web: peer };
  const names = typeof peers === 'string' ? peers.split(',').map((name) => name.trim()) : [];
  if (names.length === 0 || names.some((name) => !(NAMES as readonly string[]).includes(name))) {
    throw new UsageError(`--peers takes node, web or node,web, got ${JSON.stringify(peers)}.`);
  }
  return { node: names.includes('node'), web: names.includes('web') };
}
