import { AppError, type Command, type Decider } from '@gensvc/kernel';
import { catalogueChanges, type CatalogueChange } from './catalogue-changes';
import { catalogueDigest, priceVersionsOf, type CatalogueFile } from './catalogue-file';

/**
 * The published catalogue (stream `catalogue-main`): every published version is one
 * `CataloguePublished` event holding the file as published, its price versions and what
 * changed since the version before. Versions are numbered 1, 2, 3, …
 *
 * Two ways publish: the operator (`admin catalogue publish`), and a start of the service with
 * its start file (`CATALOGUE_FILE`, or the repository's default file). The start file
 * - publishes version 1 when nothing is published yet;
 * - changes nothing when its content is the published one, or when it is the content the
 *   start published last (the operator's later versions stand across restarts);
 * - is published as a new version when it changed since a start last published it and the
 *   version in service came from a start;
 * - is refused (CONFLICT, the start says why and keeps serving) when it changed but the
 *   operator published since: a file on disk never silently replaces the operator's
 *   catalogue. Content the operator already published since is accepted as it is.
 */
export const CATALOGUE_STREAM = 'catalogue';
export const CATALOGUE_STREAM_ID = 'main';

export type PublishSource = 'operator' | 'start';

export interface CataloguePublishedData {
  /** 1 for the first version, one more for each. */
  readonly version: number;
  /** The catalogue file as published (the format `publish` takes). */
  readonly catalogue: CatalogueFile;
  /** Digest of the content (key order and whitespace do not count). */
  readonly digest: string;
  /** The price version of each model. */
  readonly price_versions: Readonly<Record<string, string>>;
  /** What changed since the version before (every model `added` for version 1). */
  readonly changes: readonly CatalogueChange[];
  readonly source: PublishSource;
  /** For a start: the file it published (path). */
  readonly file?: string;
  readonly published_at: string;
}

export type CatalogueVersionEvent = { type: 'CataloguePublished'; data: CataloguePublishedData };

export const CATALOGUE_VERSION_EVENT_TYPES: readonly CatalogueVersionEvent['type'][] = ['CataloguePublished'];

export type CatalogueVersionCommand =
  | Command<'PublishCatalogue', { readonly catalogue: CatalogueFile }>
  | Command<'PublishStartFile', { readonly catalogue: CatalogueFile; readonly file: string }>;

export type CatalogueVersionState =
  | { readonly status: 'none' }
  | {
      readonly status: 'published';
      readonly current: CataloguePublishedData;
      /** Digest of the content a start published last, null when none did. */
      readonly startDigest: string | null;
      /** Digests the operator published since a start last published (empty: the version in service came from a start). */
      readonly operatorSinceStart: readonly string[];
    };

const initialState = (): CatalogueVersionState => ({ status: 'none' });

function evolve(state: CatalogueVersionState, event: CatalogueVersionEvent): CatalogueVersionState {
  switch (event.type) {
    case 'CataloguePublished': {
      const d = event.data;
      const before = state.status === 'published' ? state : { startDigest: null, operatorSinceStart: [] as readonly string[] };
      return d.source === 'start'
        ? { status: 'published', current: d, startDigest: d.digest, operatorSinceStart: [] }
        : { status: 'published', current: d, startDigest: before.startDigest, operatorSinceStart: [...before.operatorSinceStart, d.digest] };
    }
    default: {
      const never: never = event.type;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}

function published(state: CatalogueVersionState, catalogue: CatalogueFile, digest: string, source: PublishSource, now: Date, file?: string): CatalogueVersionEvent {
  const before = state.status === 'published' ? state.current : null;
  return {
    type: 'CataloguePublished',
    data: {
      version: (before?.version ?? 0) + 1,
      catalogue,
      digest,
      price_versions: priceVersionsOf(catalogue),
      changes: catalogueChanges(before?.catalogue ?? null, catalogue),
      source,
      ...(file !== undefined ? { file } : {}),
      published_at: now.toISOString(),
    },
  };
}

function decide(command: CatalogueVersionCommand, state: CatalogueVersionState): CatalogueVersionEvent[] {
  const digest = catalogueDigest(command.data.catalogue);
  if (state.status === 'published' && state.current.digest === digest) return [];
  switch (command.type) {
    case 'PublishCatalogue':
      return [published(state, command.data.catalogue, digest, 'operator', command.metadata.now)];
    case 'PublishStartFile': {
      const { catalogue, file } = command.data;
      if (state.status === 'none') return [published(state, catalogue, digest, 'start', command.metadata.now, file)];
      if (state.startDigest === digest) return [];
      if (state.operatorSinceStart.length) {
        if (state.operatorSinceStart.includes(digest)) return [];
        throw new AppError(
          'CONFLICT',
          `${file} changed since a start last published it, but the operator published version ${state.current.version} since; ` +
            `serving version ${state.current.version} (publish the file with \`admin catalogue publish ${file}\` to serve it)`,
        );
      }
      return [published(state, catalogue, digest, 'start', command.metadata.now, file)];
    }
    default: {
      const never: never = command;
      throw new Error(`unknown command ${JSON.stringify(never)}`);
    }
  }
}

export const catalogueVersionDecider: Decider<CatalogueVersionState, CatalogueVersionCommand, CatalogueVersionEvent> = { initialState, evolve, decide };
