import { readFile } from 'node:fs/promises';
import type { Problem } from '../core/problem.ts';
import { InputError } from './input-error.ts';
import { parseRecordsCsv } from './records-csv.ts';
import { parseRecordsJson } from './records-json.ts';

/**
 * The one door from a source name to what the pipeline plans (DESIGN.md): record files
 * enter at Problem. Graph sources (`zoo:`, .onnx, .tflite) arrive with the graph layer.
 */
export async function loadProblem(source: string): Promise<Problem> {
  if (source.startsWith('zoo:') || /\.(onnx|tflite)$/i.test(source)) {
    throw new InputError(source, undefined, 'network sources (zoo:, .onnx, .tflite) are not supported by this version yet; give a .csv or .json record file.');
  }
  const extension = /\.([^./\\]+)$/.exec(source)?.[1]?.toLowerCase();
  if (extension !== 'csv' && extension !== 'json') {
    throw new InputError(source, undefined, 'unknown source type; expected a .csv or .json record file.');
  }
  let text: string;
  try {
    text = await readFile(source, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(source, undefined, code === 'ENOENT' ? 'no such file.' : `cannot be read (${code ?? String(error)}).`);
  }
  return extension === 'csv' ? parseRecordsCsv(text, source) : parseRecordsJson(text, source);
}
