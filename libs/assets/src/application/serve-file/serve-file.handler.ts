import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AppError, Clock } from '@gensvc/kernel';
import { BlobStore } from '@gensvc/blob-store';
import { contentDisposition } from '../../domain/file-name';
import { servedContentType } from '../../domain/media-types';
import { AssetLinks } from '../asset-links';
import { AssetRecords } from '../asset-records';
import { decideRange, noneMatchHits } from './byte-ranges';

/** GET or HEAD /v1/assets/{id}/content: the signed link's parameters and the request's conditional headers. */
export interface ServeFileQuery {
  readonly asset_id: string;
  /** The link's query string: `disposition`, `expires`, `signature`. */
  readonly link: Record<string, unknown>;
  readonly method: 'GET' | 'HEAD';
  readonly range?: string;
  readonly if_range?: string;
  readonly if_none_match?: string;
}

export interface FileResponse {
  readonly status: 200 | 206 | 304;
  readonly headers: Record<string, string>;
  /** Undefined for HEAD and 304. */
  readonly body?: Readable;
}

/**
 * The signed-link file route: GET and HEAD from the blob store with ETag (the SHA-256),
 * Last-Modified, Accept-Ranges, one byte range (206), If-Range, If-None-Match (304), 416
 * for several or unsatisfiable ranges, inline or attachment disposition and nosniff.
 */
@Injectable()
export class ServeFileHandler {
  constructor(
    private readonly links: AssetLinks,
    private readonly records: AssetRecords,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
  ) {}

  async execute(query: ServeFileQuery): Promise<FileResponse> {
    const assetId = query.asset_id;
    const { disposition, expires } = this.links.verify(assetId, query.link);
    const asset = await this.records.findActive(null, assetId);
    if (!asset) throw new AppError('NOT_FOUND', 'asset not found');
    const stat = await this.blobs.stat(asset.blob_key);
    if (!stat) throw new AppError('NOT_FOUND', 'the file of this asset is not available');
    const size = stat.size;
    const etag = `"${asset.checksum}"`;
    const lastModified = new Date(asset.created_at);
    const maxAge = Math.max(0, expires - Math.floor(this.clock.now().getTime() / 1000));
    const headers: Record<string, string> = {
      'Content-Type': servedContentType(asset.mime),
      'Content-Disposition': contentDisposition(disposition, asset.name),
      ETag: etag,
      'Last-Modified': lastModified.toUTCString(),
      'Accept-Ranges': 'bytes',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': `private, max-age=${maxAge}`,
      'Content-Security-Policy': "default-src 'none'; sandbox",
    };
    if (noneMatchHits(query.if_none_match, etag)) return { status: 304, headers: pick(headers, ['ETag', 'Last-Modified', 'Cache-Control']) };
    const decision = decideRange(size, { range: query.range, ifRange: query.if_range }, { etag, lastModified });
    if (decision.kind === 'unsatisfiable') {
      throw new AppError('RANGE_NOT_SATISFIABLE', `only one satisfiable byte range of the ${size}-byte file is supported`, {
        'Content-Range': `bytes */${size}`,
        'Accept-Ranges': 'bytes',
      });
    }
    if (decision.kind === 'partial') {
      const { start, end } = decision.range;
      headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
      headers['Content-Length'] = String(end - start + 1);
      return { status: 206, headers, body: query.method === 'GET' ? await this.blobs.get(asset.blob_key, decision.range) : undefined };
    }
    headers['Content-Length'] = String(size);
    return { status: 200, headers, body: query.method === 'GET' ? await this.blobs.get(asset.blob_key) : undefined };
  }
}

const pick = (h: Record<string, string>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, h[k]]));
