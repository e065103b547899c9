import { render, screen, waitFor } from '@testing-library/preact';
import { LocationProvider } from 'preact-iso';
import type { Model, ModelSummary, Price } from '../api';
import { Models } from './models';

jest.mock('../api', () => ({
  api: { models: jest.fn(), prices: jest.fn(), model: jest.fn(), assets: jest.fn(), voices: jest.fn(), quote: jest.fn(), createTask: jest.fn() },
  ApiError: class ApiError extends Error {},
  NetworkError: class NetworkError extends Error {},
}));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { api } = require('../api') as { api: Record<string, jest.Mock> };

const price = (model: string, unitPrice: string, version: string): Price =>
  ({ model, capability: 'text.generate', unit: 'request', unit_price: unitPrice, currency: 'CNY', pricing_mode: 'fixed', price_version: version, parameters: {} }) as Price;
const summary = (id: string, name: string, available: boolean, prices: Price[]): ModelSummary =>
  ({ id, name, modality: 'text', capabilities: ['text.generate'], available, resolved_model: id, prices }) as ModelSummary;

const WRITER = summary('text-writer-lite', 'Text Writer Lite', true, [price('text-writer-lite', '0.020000', 'pv-aaaaaaaaaaaa')]);
const ROUTED = summary('routed-writer', 'Routed Writer', false, [price('routed-writer', '0.050000', 'pv-bbbbbbbbbbbb')]);

function show(path: string) {
  window.history.replaceState({}, '', path);
  return render(
    <LocationProvider>
      <Models />
    </LocationProvider>,
  );
}

describe('the models page', () => {
  beforeEach(() => {
    api.models.mockResolvedValue({ data: [WRITER, ROUTED], page: 1, limit: 2, has_more: false });
    api.prices.mockResolvedValue({ data: [...WRITER.prices, ...ROUTED.prices], page: 1, limit: 2, has_more: false });
    api.assets.mockResolvedValue({ data: [], page: 1, limit: 100, has_more: false });
    api.voices.mockResolvedValue({ data: [], page: 1, limit: 100, has_more: false });
  });

  it('shows each model\'s availability as the API gives it, and offers to run only the available ones', async () => {
    show('/console/models');
    await screen.findByText('Routed Writer');
    expect(screen.getAllByText('Available')).toHaveLength(1);
    expect(screen.getAllByText('Unavailable')).toHaveLength(1);
    expect(screen.getByRole('link', { name: 'Run Text Writer Lite' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: /Run Routed Writer/ })).toBeNull();
    expect((screen.getByRole('button', { name: 'Not available: Routed Writer' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows each model\'s price version beside its prices', async () => {
    show('/console/models');
    await waitFor(() => expect(screen.getByTestId('price-version-text-writer-lite').textContent).toBe('Price version pv-aaaaaaaaaaaa'));
    expect(screen.getByTestId('price-version-routed-writer').textContent).toBe('Price version pv-bbbbbbbbbbbb');
  });

  it('says a model opened by its address is not available now, and asks no quote for it', async () => {
    api.model.mockResolvedValue({ ...ROUTED, input_schema: { type: 'object', required: ['prompt'], properties: { prompt: { type: 'string' } } } } as Model);
    show('/console/models?model=routed-writer');
    await screen.findByTestId('model-unavailable');
    expect((screen.getByRole('button', { name: 'Get a quote' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
