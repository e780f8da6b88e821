import { runReadmeGroup } from './commands.ts';
import { EXPERIMENTS } from './how.ts';

runReadmeGroup('experiments, sweeps and studies', EXPERIMENTS);
