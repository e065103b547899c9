import jsonata from 'jsonata';
import type { CatalogueRoute } from '@gensvc/catalogue/contracts';
import type { ProviderType } from './provider-adapter';

const compiled = new Map<string, ReturnType<typeof jsonata>>();

/** A route's `input_map` that fails or yields something other than an object (an operator's mistake, not the caller's). */
export class RouteMappingError extends Error {
  override name = 'RouteMappingError';
}

/**
 * The model-specific part of a provider request (CONTRACT §14): the route's `input_map`
 * (JSONata) evaluated on `{input, options}`, or without one the parameters unchanged
 * (DashScope takes them as `input`).
 */
export async function routeInput(route: CatalogueRoute, type: ProviderType, input: Record<string, unknown>, options: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (route.input_map === undefined) return type === 'dashscope' ? { input } : input;
  let expression = compiled.get(route.input_map);
  if (!expression) {
    expression = jsonata(route.input_map);
    compiled.set(route.input_map, expression);
  }
  let result: unknown;
  try {
    result = await expression.evaluate({ input, options });
  } catch (err) {
    throw new RouteMappingError(`input_map failed: ${(err as Error).message}`);
  }
  if (!result || typeof result !== 'object' || Array.isArray(result)) throw new RouteMappingError('input_map did not yield an object');
  // JSONata objects have no prototype and may carry its sequence markers: a JSON round trip makes them plain.
  return JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
}
