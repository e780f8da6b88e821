import { runReadmeGroup } from './commands.ts';
import { BENCH } from './how.ts';

runReadmeGroup('benchmarks', BENCH);
