import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The reference .tflite files in ../shared/reference-models (never copied into the repository). */
export const REFERENCE_MODELS_DIR = join(fileURLToPath(new URL('../../../', import.meta.url)), '..', 'shared', 'reference-models');

export const REFERENCE_MODELS = ['mobilenet_v2_1.0_224_quant.tflite', 'mobilenet_v1_1.0_224_quant_embedding_extractor.tflite', 'face_detection_front.tflite', 'deeplabv3_257_mv_gpu.tflite'] as const;

export type ReferenceModel = (typeof REFERENCE_MODELS)[number];

export function referenceModelPath(model: ReferenceModel): string {
  return join(REFERENCE_MODELS_DIR, model);
}

/** Whether every reference model is present; warns (visibly) when not, so tests can skip. */
export function referenceModelsPresent(): boolean {
  const missing = REFERENCE_MODELS.filter((model) => !existsSync(referenceModelPath(model)));
  if (missing.length > 0) console.warn(`skipping TFLite reference-model tests: ${missing.join(', ')} not found in ${REFERENCE_MODELS_DIR}`);
  return missing.length === 0;
}

export function readReferenceModel(model: ReferenceModel): Uint8Array {
  return new Uint8Array(readFileSync(referenceModelPath(model)));
}
