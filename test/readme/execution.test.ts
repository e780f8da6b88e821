import { runReadmeGroup } from './commands.ts';
import { EXECUTION } from './how.ts';

runReadmeGroup('running plans, agents and traces', EXECUTION);
