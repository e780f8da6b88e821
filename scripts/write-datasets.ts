/** `npm run datasets`: rewrites datasets/zoo/*.csv from the zoo (a test fails when they are stale). */
import { writeFileAtomic } from '../src/io/atomic-write.ts';
import { zooDatasets } from '../src/io/datasets.ts';

if (process.argv.length > 2) {
  console.error(`write-datasets: takes no arguments, got "${process.argv.slice(2).join(' ')}".\nusage: npm run datasets`);
  process.exit(2);
}
for (const file of zooDatasets()) {
  await writeFileAtomic(file.path, file.content);
  console.log(`wrote ${file.path}`);
}
