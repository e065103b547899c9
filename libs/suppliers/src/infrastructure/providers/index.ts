import type { ProviderAdapters } from '../../application/providers/provider-channels';

/** The provider adapters of this build, by channel type (docs/channels.md says what each follows). */
export const PROVIDER_ADAPTERS: ProviderAdapters = {};
