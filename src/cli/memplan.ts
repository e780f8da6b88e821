// The memplan program (bin/memplan.js starts it): the command line of this process, run by main().
import { main } from './main.ts';

// The arguments after node and the script (what yargs' hideBin gives for a script run by node).
await main(process.argv.slice(2));
