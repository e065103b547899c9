import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';
import { EventStore } from '@gensvc/event-sourcing';
import type { CatalogueFile } from '../../domain/catalogue-file';
import type { CatalogueVersionEvent } from '../../domain/catalogue-versions';
import { CATALOGUE_STREAM_NAME, loadCatalogueVersions } from '../catalogue-stream';

export interface ShowCatalogueQuery {
  /** A version published before; the version in service when absent. */
  readonly version?: number;
}

/** `admin catalogue show`: a published version as published, in the format `publish` takes. */
export interface CatalogueShown {
  readonly version: number;
  readonly published_at: string;
  readonly catalogue: CatalogueFile;
}

/** Reads a published version from the catalogue's stream (the source of truth, not a process's copy). */
@Injectable()
export class ShowCatalogueHandler {
  constructor(@Inject(EventStore) private readonly events: EventStore) {}

  async execute(query: ShowCatalogueQuery = {}): Promise<CatalogueShown> {
    if (query.version === undefined) {
      const state = await loadCatalogueVersions(this.events);
      if (state.status !== 'published') throw new AppError('NOT_FOUND', 'no catalogue version is published');
      return shown(state.current);
    }
    const [event] = await this.events.readStream<CatalogueVersionEvent>(CATALOGUE_STREAM_NAME, { fromRevision: BigInt(query.version - 1) });
    if (!event || event.data.version !== query.version) throw new AppError('NOT_FOUND', `catalogue version ${query.version} not found`);
    return shown(event.data);
  }
}

const shown = (d: CatalogueVersionEvent['data']): CatalogueShown => ({ version: d.version, published_at: d.published_at, catalogue: d.catalogue });
