import { Inject, Injectable } from '@nestjs/common';
import { EventStore } from '@gensvc/event-sourcing';
import { catalogueChanges, type CatalogueChange } from '../../domain/catalogue-changes';
import { catalogueDigest, parseCatalogueFile } from '../../domain/catalogue-file';
import { loadCatalogueVersions } from '../catalogue-stream';

export interface DiffCatalogueQuery {
  /** The catalogue file's text or its parsed JSON. */
  readonly file: unknown;
}

/**
 * `admin catalogue diff FILE`: what publishing the file would change against the version in
 * service, each change naming its model; validated like a publish, nothing stored.
 */
@Injectable()
export class DiffCatalogueHandler {
  constructor(@Inject(EventStore) private readonly events: EventStore) {}

  async execute(query: DiffCatalogueQuery): Promise<{ changes: CatalogueChange[] }> {
    const file = parseCatalogueFile(query.file);
    const state = await loadCatalogueVersions(this.events);
    const current = state.status === 'published' ? state.current : null;
    if (current?.digest === catalogueDigest(file)) return { changes: [] };
    return { changes: catalogueChanges(current?.catalogue ?? null, file) };
  }
}
