/**
 * Writes experiments/schema.json, the JSON Schema of experiment and study files that editors
 * read (each file names it with "$schema": "./schema.json"), from the zod schemas their
 * parsers check with (src/experiments/file-schema.ts). A test holds the two together: run
 * `npm run schema` after changing a schema.
 */
import { writeFileAtomic } from '../src/io/atomic-write.ts';
import { experimentFilesJsonSchema } from '../src/experiments/file-schema.ts';

await writeFileAtomic('experiments/schema.json', `${JSON.stringify(experimentFilesJsonSchema(), null, 2)}\n`);
process.stdout.write('wrote experiments/schema.json\n');
