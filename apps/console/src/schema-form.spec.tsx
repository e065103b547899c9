import { fireEvent, render, screen } from '@testing-library/preact';
import { useState } from 'preact/hooks';
import { SchemaForm, fieldsOf, initialValues, toInput, type FormValues, type JsonSchema } from './schema-form';

/** The catalogue's image model schema (libs/catalogue/catalogue/catalogue.json), trimmed. */
const IMAGE: JsonSchema = {
  type: 'object',
  required: ['prompt'],
  properties: {
    prompt: { type: 'string', minLength: 1, maxLength: 2000 },
    size: { type: 'string', enum: ['512x512', '1024x1024', '2048x2048'], default: '1024x1024' },
    count: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
    seed: { type: 'integer', minimum: 0, maximum: 4294967295 },
    temperature: { type: 'number', minimum: 0, maximum: 2, default: 0.7 },
    asset_ids: { type: 'array', items: { type: 'string' }, maxItems: 4, description: 'Reference images.' },
  },
};

const VOICE: JsonSchema = {
  type: 'object',
  required: ['asset_ids', 'name', 'consent_attested'],
  properties: {
    asset_ids: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 1 },
    name: { type: 'string', minLength: 1, maxLength: 100 },
    consent_attested: { type: 'boolean', const: true, description: 'The speaker agreed.' },
  },
};

function Harness({ schema, onValues }: { schema: JsonSchema; onValues: (v: Record<string, unknown>) => void }) {
  const fields = fieldsOf(schema);
  const [values, setValues] = useState<FormValues>(initialValues(fields));
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onValues(toInput(fields, values));
      }}
    >
      <SchemaForm
        fields={fields}
        values={values}
        onChange={setValues}
        assets={[
          { value: 'ast_a', label: 'cat.png' },
          { value: 'ast_b', label: 'sample.wav' },
        ]}
      />
      <button type="submit">Quote</button>
    </form>
  );
}

describe('schema-driven form', () => {
  it('makes one labelled control per property, of the right kind, with limits and defaults', () => {
    render(<Harness schema={IMAGE} onValues={() => undefined} />);
    const prompt = screen.getByLabelText(/Prompt/) as HTMLTextAreaElement;
    expect(prompt.tagName).toBe('TEXTAREA');
    expect(prompt.required).toBe(true);
    expect(prompt.maxLength).toBe(2000);
    const size = screen.getByLabelText('Size') as HTMLSelectElement;
    expect(Array.from(size.options).map((o) => o.value)).toEqual(['512x512', '1024x1024', '2048x2048']);
    expect(size.value).toBe('1024x1024');
    const count = screen.getByLabelText('Count') as HTMLInputElement;
    expect(count.type).toBe('number');
    expect([count.min, count.max, count.step, count.value]).toEqual(['1', '4', '1', '1']);
    expect((screen.getByLabelText('Temperature') as HTMLInputElement).step).toBe('any');
    expect((screen.getByLabelText('Seed') as HTMLInputElement).value).toBe('');
    const files = screen.getByLabelText('Files') as HTMLSelectElement;
    expect(files.multiple).toBe(true);
    // the hint is tied to its control for screen readers
    expect(screen.getByLabelText('Count').getAttribute('aria-describedby')).toBe('in-count-hint');
    expect(document.getElementById('in-count-hint')!.textContent).toContain('From 1 to 4.');
  });

  it('sends typed values: numbers as numbers, defaults kept, empty optional fields left out', () => {
    const sent: Record<string, unknown>[] = [];
    render(<Harness schema={IMAGE} onValues={(v) => sent.push(v)} />);
    fireEvent.input(screen.getByLabelText(/Prompt/), { target: { value: 'a red fox' } });
    fireEvent.change(screen.getByLabelText('Size'), { target: { value: '512x512' } });
    fireEvent.input(screen.getByLabelText('Count'), { target: { value: '3' } });
    fireEvent.click(screen.getByText('Quote'));
    expect(sent).toEqual([{ prompt: 'a red fox', size: '512x512', count: 3, temperature: 0.7 }]);
  });

  it('offers the caller\u2019s files for asset_ids and requires the consent checkbox', () => {
    const sent: Record<string, unknown>[] = [];
    render(<Harness schema={VOICE} onValues={(v) => sent.push(v)} />);
    const file = screen.getByLabelText(/Files/) as HTMLSelectElement;
    expect(file.multiple).toBe(false); // maxItems 1: one choice
    const consent = screen.getByLabelText(/Consent attested/) as HTMLInputElement;
    expect(consent.type).toBe('checkbox');
    expect(consent.required).toBe(true);
    fireEvent.change(file, { target: { value: 'ast_b' } });
    fireEvent.input(screen.getByLabelText(/Name/), { target: { value: 'Narrator' } });
    fireEvent.click(consent);
    fireEvent.click(screen.getByText('Quote'));
    expect(sent).toEqual([{ asset_ids: ['ast_b'], name: 'Narrator', consent_attested: true }]);
  });

  it('passes what the browser cannot parse through, so the API names the field', () => {
    const fields = fieldsOf(IMAGE);
    expect(toInput(fields, { ...initialValues(fields), prompt: 'x', count: '2.5e', seed: '7' })).toMatchObject({ count: '2.5e', seed: 7 });
  });
});
