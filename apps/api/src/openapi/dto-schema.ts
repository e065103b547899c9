import { getMetadataStorage } from 'class-validator';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

interface ValidationMeta {
  type: string;
  name?: string;
  propertyName: string;
  constraints?: unknown[];
}

/**
 * The JSON Schema of a request DTO, read from its class-validator decorators (the rules the
 * validation pipe enforces): types, lengths, ranges, patterns, enums and which properties
 * are optional. Unknown properties are refused by the pipe, hence `additionalProperties: false`.
 */
export function dtoSchema(dto: new (...args: never[]) => unknown): { schema: JsonSchema; properties: Map<string, { schema: JsonSchema; required: boolean }> } {
  const metas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false) as unknown as ValidationMeta[];
  const props = new Map<string, { schema: JsonSchema; required: boolean }>();
  for (const m of metas) {
    const p = props.get(m.propertyName) ?? { schema: {}, required: true };
    props.set(m.propertyName, p);
    const s = p.schema;
    const c = m.constraints ?? [];
    if (m.type === 'conditionalValidation' && m.name === 'isOptional') {
      p.required = false;
      continue;
    }
    switch (m.name) {
      case 'isString':
        s.type = 'string';
        break;
      case 'isInt':
        s.type = 'integer';
        break;
      case 'isNumber':
        s.type = 'number';
        break;
      case 'isBoolean':
        s.type = 'boolean';
        break;
      case 'isObject':
        s.type = 'object';
        break;
      case 'isArray':
        s.type = 'array';
        break;
      case 'isLength':
        if (typeof c[0] === 'number') s.minLength = c[0];
        if (typeof c[1] === 'number') s.maxLength = c[1];
        break;
      case 'minLength':
        s.minLength = c[0];
        break;
      case 'maxLength':
        s.maxLength = c[0];
        break;
      case 'isNotEmpty':
        s.minLength = Math.max(1, (s.minLength as number | undefined) ?? 1);
        break;
      case 'matches':
        if (c[0] instanceof RegExp) s.pattern = c[0].source;
        else if (typeof c[0] === 'string') s.pattern = c[0];
        break;
      case 'min':
        s.minimum = c[0];
        break;
      case 'max':
        s.maximum = c[0];
        break;
      case 'isIn':
        s.enum = [...(c[0] as unknown[])];
        break;
      case 'isUrl':
        s.format = 'uri';
        break;
      case 'isEmail':
        s.format = 'email';
        break;
      case 'equals':
        s.const = c[0];
        break;
      default:
        break;
    }
  }
  const schema: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries([...props].map(([k, v]) => [k, v.schema])),
    additionalProperties: false,
  };
  const required = [...props].filter(([, v]) => v.required).map(([k]) => k);
  if (required.length) schema.required = required;
  return { schema, properties: props };
}
