import { runReadmeGroup } from './commands.ts';
import { PLANNING } from './how.ts';

runReadmeGroup('planning, sources and checking plans', PLANNING);
