import { render, screen } from '@testing-library/preact';
import { LocationProvider, Route, Router } from 'preact-iso';
import type { Task } from '../api';
import { TaskDetail } from './task';

jest.mock('../api', () => ({
  api: { task: jest.fn(), asset: jest.fn(), cancelTask: jest.fn() },
  ApiError: class ApiError extends Error {},
  NetworkError: class NetworkError extends Error {},
}));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { api } = require('../api') as { api: Record<string, jest.Mock> };

const TASK = {
  id: 'task_01jtest',
  status: 'succeeded',
  model: 'text-writer-lite',
  resolved_model: 'text-writer-lite',
  capability: 'text.generate',
  modality: 'text',
  title: 'Paper boats',
  quote_id: 'qt_01jtest',
  price_version: 'pv-0123456789ab',
  currency: 'CNY',
  max_amount: '0.020000',
  charged_amount: '0.020000',
  settlement_status: 'settled',
  cancellation: { status: 'none', requested_at: null, error_code: null },
  output: null,
  error: null,
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:00:02.000Z',
  completed_at: '2026-11-20T10:00:02.000Z',
} as unknown as Task;

describe('the task page', () => {
  it('shows the price version the task was charged at (its quote\'s)', async () => {
    api.task.mockResolvedValue(TASK);
    window.history.replaceState({}, '', '/console/tasks/task_01jtest');
    render(
      <LocationProvider>
        <Router>
          <Route path="/console/tasks/:id" component={TaskDetail} />
          <Route default component={() => <p>elsewhere</p>} />
        </Router>
      </LocationProvider>,
    );
    const label = await screen.findByText('Price version');
    expect(label.parentElement?.textContent).toContain('pv-0123456789ab');
  });
});
