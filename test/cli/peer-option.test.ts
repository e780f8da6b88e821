import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.ts';
import { peerChoice } from '../../src/cli/peer-option.ts';

describe('peerChoice (--peer and --peers of exec)', () => {
  it('times both peers with --peer, none without it', () => {
    expect(peerChoice(true, undefined)).toEqual({ node: true, web: true });
    expect(peerChoice(false, undefined)).toEqual({ node: false, web: false });
  });

  it.each([
    ['node', { node: true, web: false }],
    ['web', { node: false, web: true }],
    ['node,web', { node: true, web: true }],
    ['web, node', { node: true, web: true }],
  ])('--peers %s times those, with or without --peer', (peers, chosen) => {
    expect(peerChoice(false, peers)).toEqual(chosen);
    expect(peerChoice(true, peers)).toEqual(chosen);
  });

  it.each(['', 'native', 'node,', 'onnxruntime-node', 42])('refuses --peers %s in one sentence', (peers) => {
    expect(() => peerChoice(false, peers)).toThrow(UsageError);
    expect(() => peerChoice(false, peers)).toThrow(`--peers takes node, web or node,web, got ${JSON.stringify(peers)}.`);
  });
});
