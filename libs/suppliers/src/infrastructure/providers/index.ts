import type { ProviderAdapters } from '../../application/providers/provider-channels';
import { arkAdapter } from './ark/ark.adapter';
import { dashscopeAdapter } from './dashscope/dashscope.adapter';
import { falAdapter } from './fal/fal.adapter';
import { openaiAdapter } from './openai/openai.adapter';
import { replicateAdapter } from './replicate/replicate.adapter';

/** The provider adapters of this build, by channel type (docs/channels.md says what each follows). */
export const PROVIDER_ADAPTERS: ProviderAdapters = {
  replicate: replicateAdapter,
  fal: falAdapter,
  openai: openaiAdapter,
  dashscope: dashscopeAdapter,
  ark: arkAdapter,
};
