import { describe, it } from 'vitest';
import { fullDiskAvailable, fullDiskFolder, memplanOnFullDisk } from '../fixtures/full-disk.ts';
import { userErrorLine } from './run-memplan.ts';

describe.skipIf(!fullDiskAvailable)('memplan export --to on a full disk', () => {
  it('says which file could not be written, and keeps the file that was there', async ({ expect }) => {
    const { dir, remove } = fullDiskFolder();
    try {
      // MobileNet v2's weights (14 MB) do not fit in 256 KiB; the earlier export must survive whole.
      const run = await memplanOnFullDisk(dir, 256, ['export', 'zoo:mobilenet-v2', '--to', `${dir}/m.onnx`], {
        prepare: `printf 'the earlier export' > ${dir}/m.onnx`,
        inspect: `ls -A ${dir}; cat ${dir}/m.onnx`,
      });
      expect(userErrorLine(run)).toBe(`memplan: ${dir}/m.onnx: no space left on the device (write, ENOSPC).`);
      expect(run.after).toBe('m.onnx\nthe earlier export');
    } finally {
      remove();
    }
  });
});
