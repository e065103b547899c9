import { EventStore, loadAggregate } from '@gensvc/event-sourcing';
import { streamName } from '@gensvc/kernel';
import { CatalogueVersion } from '../domain/catalogue';
import { CATALOGUE_STREAM, CATALOGUE_STREAM_ID, catalogueVersionDecider, type CataloguePublishedData, type CatalogueVersionState } from '../domain/catalogue-versions';

/** The stream of the published catalogue versions. */
export const CATALOGUE_STREAM_NAME = streamName(CATALOGUE_STREAM, CATALOGUE_STREAM_ID);

/** Who publishes the start file (the event's actor). */
export const START_ACTOR = 'system:catalogue-start';

/** The version a `CataloguePublished` event published, ready to serve. */
export function versionOf(d: CataloguePublishedData): CatalogueVersion {
  return new CatalogueVersion(d.catalogue, { version: d.version, publishedAt: d.published_at, priceVersions: d.price_versions });
}

/** The stream folded: what is published now. */
export async function loadCatalogueVersions(events: EventStore): Promise<CatalogueVersionState> {
  return (await loadAggregate(events, CATALOGUE_STREAM_NAME, catalogueVersionDecider)).state;
}
