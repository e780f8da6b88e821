import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = () => void;

let collect: Collect | null | undefined;
let pending: NodeJS.Timeout | undefined;

/**
 * Why a server collects garbage itself: the memory of a large body it let go stays with the
 * process until V8 collects, and an idle V8 does not soon (measured on the agent with a 61
 * MiB job: 61 MiB more until V8's own collection about ten seconds later; back at once with
 * this). The only way V8 offers to collect on request is its `gc` function, which the
 * --expose-gc flag puts in contexts made after it is set; setting it changes nothing else.
 */
function gc(): Collect | null {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as Collect;
    } catch {
      // A runtime without the flag: V8 collects in its own time.
      collect = null;
    }
  }
  return collect;
}

/** A full collection, soon (calls in one turn make one): for when a large body has gone. */
export function returnMemory(): void {
  if (pending !== undefined) return;
  pending = setTimeout(() => {
    pending = undefined;
    // No options: on Node 20, gc({ type: 'major' }) leaves dead buffers where they are.
    gc()?.();
  }, 0);
  pending.unref();
}
