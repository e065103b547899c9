/** JSON Schema of the catalogue file itself (checked at start). */
export const catalogueFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'currency', 'models'],
  properties: {
    version: { type: 'string', minLength: 1, maxLength: 40 },
    currency: { const: 'CNY' },
    models: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        // Either `supplier` + `supplier_model` (one route) or `routes` (checked in code, so the
        // error names the model and the field).
        required: ['id', 'name', 'modality', 'capabilities', 'available', 'resolved_model', 'input_schema', 'pricing'],
        properties: {
          id: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,149}$' },
          name: { type: 'string', minLength: 1 },
          modality: { enum: ['text', 'image', 'audio', 'video'] },
          capabilities: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[a-z0-9._-]{1,100}$' } },
          available: { type: 'boolean' },
          supplier: { type: 'string', minLength: 1 },
          supplier_model: { type: 'string', minLength: 1 },
          routes: {
            type: 'array',
            minItems: 1,
            maxItems: 16,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['channel', 'supplier_model'],
              properties: {
                channel: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,39}$' },
                supplier_model: { type: 'string', minLength: 1, maxLength: 300 },
                priority: { type: 'integer', minimum: -1000000, maximum: 1000000 },
                input_map: { type: 'string', minLength: 1, maxLength: 20000 },
                unit_cost: { type: 'string', pattern: '^\\d+\\.\\d{6}$' },
              },
            },
          },
          resolved_model: { type: 'string', minLength: 1 },
          input_schema: { type: 'object', required: ['type', 'properties'], properties: { type: { const: 'object' } } },
          pricing: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['capability', 'unit', 'quantity', 'prices'],
              properties: {
                capability: { type: 'string' },
                unit: { type: 'string', minLength: 1 },
                quantity: {
                  oneOf: [
                    { type: 'object', additionalProperties: false, required: ['kind'], properties: { kind: { const: 'one' } } },
                    { type: 'object', additionalProperties: false, required: ['kind', 'field'], properties: { kind: { const: 'field' }, field: { type: 'string' } } },
                    {
                      type: 'object',
                      additionalProperties: false,
                      required: ['kind', 'field', 'per'],
                      properties: { kind: { const: 'characters' }, field: { type: 'string' }, per: { type: 'integer', minimum: 1 } },
                    },
                  ],
                },
                prices: {
                  type: 'array',
                  minItems: 1,
                  items: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['when', 'unit_price'],
                    properties: { when: { type: 'object' }, unit_price: { type: 'string', pattern: '^\\d+\\.\\d{6}$' } },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;
