import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { flexnnBudgetSchema } from '../../../src/experiments/studies/flexnn-budget-schema.ts';
import { gemmTilingSchema } from '../../../src/experiments/studies/gemm-tiling-schema.ts';
import { parallelGroupsSchema } from '../../../src/experiments/studies/parallel-groups-schema.ts';

interface JsonSchemaNode {
  readonly properties?: Record<string, JsonSchemaNode & { description?: string }>;
  readonly items?: JsonSchemaNode;
  readonly additionalProperties?: boolean | JsonSchemaNode;
  readonly anyOf?: readonly JsonSchemaNode[];
}

/** The JSON paths of the fields an editor would show without a description. */
function undescribed(node: JsonSchemaNode, path = '$'): string[] {
  const fields = Object.entries(node.properties ?? {}).flatMap(([key, field]) => [...(field.description ? [] : [`${path}.${key}`]), ...undescribed(field, `${path}.${key}`)]);
  const items = node.items ? undescribed(node.items, `${path}[]`) : [];
  const values = typeof node.additionalProperties === 'object' ? undescribed(node.additionalProperties, `${path}.*`) : [];
  return [...fields, ...items, ...values, ...(node.anyOf ?? []).flatMap((branch) => undescribed(branch, path))];
}

describe.each([
  ['gemm-tiling', gemmTilingSchema],
  ['flexnn-budget', flexnnBudgetSchema],
  ['parallel-groups', parallelGroupsSchema],
] as const)('the %s study file schema', (study, schema) => {
  const json = z.toJSONSchema(schema(), { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode & { required: string[] };

  it('describes every field, for editors', () => {
    expect(Object.keys(json.properties ?? {}).length).toBeGreaterThan(10);
    expect(undescribed(json)).toEqual([]);
  });

  it('names its study, takes $schema and $comment, and no field it does not know', () => {
    expect(json.properties?.study).toMatchObject({ const: study });
    expect(json.required).toContain('study');
    expect(Object.keys(json.properties ?? {}).slice(0, 3)).toEqual(['$schema', '$comment', 'study']);
    expect(json.additionalProperties).toBe(false);
  });
});
