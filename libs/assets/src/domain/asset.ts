import { AppError, type Command, type Decider } from '@gensvc/kernel';

/** A registered file of an account (stream `asset-<asset_id>`). */
export const ASSET_STREAM = 'asset';

export type AssetSource =
  | { kind: 'upload'; upload_id: string }
  | { kind: 'direct' }
  | { kind: 'import'; url: string }
  | { kind: 'task_output'; task_id: string; index: number };

export interface AssetFacts {
  readonly asset_id: string;
  readonly account_id: string;
  readonly name: string;
  readonly mime: string;
  readonly size: number;
  /** SHA-256 of the bytes, lowercase hex. */
  readonly checksum: string;
  readonly blob_key: string;
  readonly source: AssetSource;
  readonly created_at: string;
}

export type AssetEvent =
  | { type: 'AssetRegistered'; data: AssetFacts }
  /** Unreadable and unreferenceable from now on; the reactor removes `blob_key` from storage. */
  | { type: 'AssetDeleted'; data: { asset_id: string; account_id: string; blob_key: string; deleted_at: string } };

export const ASSET_EVENT_TYPES: readonly AssetEvent['type'][] = ['AssetRegistered', 'AssetDeleted'];

export type AssetState =
  | { readonly status: 'none' }
  | (AssetFacts & { readonly status: 'active' })
  | (AssetFacts & { readonly status: 'deleted'; readonly deleted_at: string });

export type AssetCommand =
  | Command<'RegisterAsset', AssetFacts>
  /** `in_use`: an unfinished task references the asset (read by the handler). */
  | Command<'DeleteAsset', { account_id: string; in_use: boolean }>;

export const assetDecider: Decider<AssetState, AssetCommand, AssetEvent> = {
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    switch (event.type) {
      case 'AssetRegistered':
        return { ...event.data, status: 'active' };
      case 'AssetDeleted':
        if (state.status === 'none') return state;
        return { ...state, status: 'deleted', deleted_at: event.data.deleted_at };
      default: {
        const never: never = event;
        return never;
      }
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'RegisterAsset':
        // Registration happens once; a repeat (or a deleted asset) is left as it is.
        return state.status === 'none' ? [{ type: 'AssetRegistered', data: command.data }] : [];
      case 'DeleteAsset': {
        const c = command.data;
        if (state.status === 'none' || state.account_id !== c.account_id) throw new AppError('NOT_FOUND', 'asset not found');
        if (state.status === 'deleted') return [];
        if (c.in_use) throw new AppError('ASSET_IN_USE', 'an unfinished task uses this asset; delete it after the task ends');
        return [
          { type: 'AssetDeleted', data: { asset_id: state.asset_id, account_id: state.account_id, blob_key: state.blob_key, deleted_at: command.metadata.now.toISOString() } },
        ];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
