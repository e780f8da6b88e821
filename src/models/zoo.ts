import { isDType } from '../graph/dtype.ts';
import type { Graph } from '../graph/ir.ts';
import { blazeface } from './blazeface.ts';
import { deeplabV3 } from './deeplab-v3.ts';
import { googlenet } from './googlenet.ts';
import { gpt2 } from './gpt-2.ts';
import { inceptionV3 } from './inception-v3.ts';
import { mobilenetV1 } from './mobilenet-v1.ts';
import { mobilenetV2 } from './mobilenet-v2.ts';
import type { ModelParameters, ZooModel } from './model.ts';
import { posenet } from './posenet.ts';
import { resnet152 } from './resnet-152.ts';
import { resnext50Grouped, resnext50Paths } from './resnext-50.ts';
import { squeezenet11 } from './squeezenet-1.1.ts';
import { vgg19 } from './vgg-19.ts';
import { vitB16 } from './vit.ts';
import { xception } from './xception.ts';
import { ZooError } from './zoo-error.ts';

/** The six networks of the paper, in the order of its tables (what datasets/ holds). */
export const PAPER_ZOO: readonly ZooModel[] = [mobilenetV1, mobilenetV2, deeplabV3, inceptionV3, posenet, blazeface];

/** The transformers FlexNN evaluates beside its CNNs. */
export const TRANSFORMER_ZOO: readonly ZooModel[] = [vitB16, gpt2];

/** Every network: the paper's six first, then the further ImageNet classifiers, then the transformers. */
export const ZOO: readonly ZooModel[] = [...PAPER_ZOO, vgg19, resnet152, squeezenet11, resnext50Paths, resnext50Grouped, googlenet, xception, ...TRANSFORMER_ZOO];

const PARAMETER_KEYS: Record<string, keyof ModelParameters> = {
  input: 'inputSize',
  width: 'widthMultiplier',
  batch: 'batch',
  dtype: 'dtype',
  tokens: 'tokens',
  layers: 'layers',
};

/**
 * Builds `zoo:<name>` or `zoo:<name>?input=160&width=0.5&batch=2&dtype=float16`, and for the
 * transformers `tokens=N` and `layers=N` (only the parameters the network allows).
 */
export function buildZooModel(source: string): Graph {
  const [name, query = ''] = source.replace(/^zoo:/, '').split('?', 2);
  const model = ZOO.find((m) => m.name === name);
  if (!model) throw new ZooError(`${source}: no such network; the zoo has ${ZOO.map((m) => m.name).join(', ')}.`);
  const parameters: { -readonly [K in keyof ModelParameters]: ModelParameters[K] } = { ...model.defaults };
  for (const pair of query.split('&').filter((s) => s !== '')) {
    const [key, value = ''] = pair.split('=', 2);
    const field = PARAMETER_KEYS[key];
    if (field === undefined) throw new ZooError(`${source}: unknown parameter "${key}"; use ${Object.keys(PARAMETER_KEYS).join(', ')}.`);
    if (!model.tunable.includes(field)) {
      const fixed = model.defaults[field];
      throw new ZooError(fixed === undefined || fixed === 0 ? `${source}: ${model.name} has no parameter "${key}".` : `${source}: ${model.name} is fixed at ${key}=${fixed} by the published model.`);
    }
    if (field === 'dtype') {
      if (!isDType(value)) throw new ZooError(`${source}: unknown element type "${value}".`);
      parameters.dtype = value;
      continue;
    }
    const number = Number(value);
    const whole = field !== 'widthMultiplier';
    if (!Number.isFinite(number) || number <= 0 || (whole && !Number.isInteger(number))) {
      throw new ZooError(`${source}: ${key} must be a ${whole ? 'whole ' : ''}number > 0, got "${value}".`);
    }
    parameters[field] = number;
  }
  return model.build(parameters);
}
