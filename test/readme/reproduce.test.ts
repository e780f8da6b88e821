import { runReadmeGroup } from './commands.ts';
import { REPRODUCE } from './how.ts';

runReadmeGroup('reproducing the paper', REPRODUCE);
