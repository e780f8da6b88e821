import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The documents a newcomer reads first; every relative link in them must name a file of the repository. */
const DOCUMENTS = ['README.md', 'DEVELOPERS.md', 'docs/design.md', 'docs/exact-search-notes.md', 'docs/webgpu.md', 'docs/agent-threat-model.md', 'src/planners/offsets/exact/README.md'];

/** Relative link targets of a Markdown text: `[text](target)`, without an anchor; web and mail links left out. */
function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1].split('#')[0]);
  return targets.filter((target) => target !== '' && !/^[a-z]+:/i.test(target));
}

describe('documents', () => {
  for (const document of DOCUMENTS.filter((path) => existsSync(path))) {
    it(`${document}: every relative link points at a file that exists`, () => {
      const links = relativeLinks(readFileSync(document, 'utf8'));
      const missing = links.filter((target) => !existsSync(join(dirname(document), decodeURIComponent(target))));
      expect(missing).toEqual([]);
    });
  }

  it('finds the links of a text, anchors and web links aside', () => {
    expect(relativeLinks('[a](results/x.md) [b](https://example.org) [c](docs/y.md#part) [d](#top) [e](mailto:x@y)')).toEqual(['results/x.md', 'docs/y.md']);
  });
});
