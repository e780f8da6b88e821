// The memplan program (bin/memplan.js starts it): the command line of this process, run by main().
import { hideBin } from 'yargs/helpers';
import { main } from './main.ts';

await main(hideBin(process.argv));
