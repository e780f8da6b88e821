import { runReadmeGroup } from './commands.ts';
import { BROWSER } from './how.ts';

runReadmeGroup('browsers', BROWSER);
