import type { LeaseStore } from '@gensvc/event-sourcing';
import type { ProviderAdapters } from '../application/providers/provider-channels';
import { ProviderChannels } from '../application/providers/provider-channels';
import type { RouteHealth } from '../application/providers/routed-channel';

/** The provider channels of a deployment that has none (for building the suppliers context by hand in tests). */
export const NO_PROVIDERS: [ProviderChannels, RouteHealth] = [
  new ProviderChannels([], {} as ProviderAdapters, {} as LeaseStore),
  { passed: () => false },
];
