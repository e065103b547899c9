import type { Projection } from '@gensvc/shared';
import { ASSETS_PROJECTIONS } from '@gensvc/assets';
import { IDENTITY_PROJECTIONS } from '@gensvc/identity';
import { NOTIFICATIONS_PROJECTIONS } from '@gensvc/notifications';
import { OPERATIONS_PROJECTIONS } from '@gensvc/operations';
import { SUPPLIERS_PROJECTIONS } from '@gensvc/suppliers';
import { TASKS_PROJECTIONS } from '@gensvc/tasks';
import { VOICES_PROJECTIONS } from '@gensvc/voices';
import { WALLET_PROJECTIONS } from '@gensvc/wallet';

/**
 * Every read model of the composed contexts, for the projection thread (which runs them
 * without Nest). A test checks that this list names the same projections the app discovers.
 */
export const ALL_PROJECTIONS: readonly (new () => Projection)[] = [
  ...IDENTITY_PROJECTIONS,
  ...TASKS_PROJECTIONS,
  ...ASSETS_PROJECTIONS,
  ...VOICES_PROJECTIONS,
  ...WALLET_PROJECTIONS,
  ...SUPPLIERS_PROJECTIONS,
  ...NOTIFICATIONS_PROJECTIONS,
  ...OPERATIONS_PROJECTIONS,
];
