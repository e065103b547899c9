import { Body, Controller, Get, HttpCode, Param, Post, Put, Req, Res } from '@nestjs/common';
import { Operation } from './operation';
import type { Request, Response } from 'express';
import { AppError, Clock } from '@gensvc/kernel';
import { CurrentPrincipal, OpenApiOperations, type Principal, RequireScope, UploadTokenAuth } from '@gensvc/http';
import { CompleteUploadHandler } from '../application/complete-upload/complete-upload.handler';
import { DirectUploadHandler } from '../application/direct-upload/direct-upload.handler';
import { GetUploadHandler } from '../application/get-upload/get-upload.handler';
import { ImportAssetHandler } from '../application/import-asset/import-asset.handler';
import { PrepareUploadHandler } from '../application/prepare-upload/prepare-upload.handler';
import { ReceiveContentHandler } from '../application/receive-content/receive-content.handler';
import { withoutLinks, type UploadView } from '../application/upload-sessions';
import { ImportUploadDto, PrepareUploadDto } from './dto';
import { UPLOADS_OPENAPI } from './uploads.openapi';

function contentLength(req: Request): number | undefined {
  const raw = req.headers['content-length'];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/**
 * When a raw-body request is refused before its body was read, the connection is closed
 * after the answer instead of draining up to 64 MiB nobody wants.
 */
async function rawBody<T>(req: Request, res: Response, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!req.complete && !res.headersSent) res.setHeader('Connection', 'close');
    throw err;
  }
}

/** Signed asset links only for a caller that may read (CONTRACT §10: create does not imply read). */
async function forCaller(p: Principal, view: Promise<UploadView>): Promise<UploadView> {
  return p.scopes.includes('read') ? view : withoutLinks(await view);
}

@Controller('v1/uploads')
@OpenApiOperations(UPLOADS_OPENAPI)
export class UploadsController {
  constructor(
    private readonly directUpload: DirectUploadHandler,
    private readonly importAsset: ImportAssetHandler,
    private readonly prepareUpload: PrepareUploadHandler,
    private readonly getUpload: GetUploadHandler,
    private readonly receiveContent: ReceiveContentHandler,
    private readonly completeUpload: CompleteUploadHandler,
    private readonly clock: Clock,
  ) {}

  /** Direct upload: raw bytes, Content-Type and X-Filename; 201 with the asset. */
  @Post()
  @HttpCode(201)
  @RequireScope('create')
  @Operation('assets.upload', 'Upload a file directly (raw body)')
  direct(@CurrentPrincipal() p: Principal, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    return rawBody(req, res, () =>
      this.directUpload.execute({
        type: 'DirectUpload',
        data: { account_id: p.accountId, body: req, content_type: req.headers['content-type'], content_length: contentLength(req), file_name: req.headers['x-filename'] },
        metadata: { now: this.clock.now() },
      }),
    );
  }

  @Post('import')
  @HttpCode(201)
  @RequireScope('create')
  @Operation('assets.import', 'Import a file from a public HTTPS address')
  import(@CurrentPrincipal() p: Principal, @Body() body: ImportUploadDto) {
    return this.importAsset.execute({ type: 'ImportAsset', data: { account_id: p.accountId, url: body.url, name: body.name }, metadata: { now: this.clock.now() } });
  }

  @Post('prepare')
  @HttpCode(200)
  @RequireScope('create')
  @Operation('assets.upload.prepare', 'Prepare an upload')
  prepare(@CurrentPrincipal() p: Principal, @Body() body: PrepareUploadDto) {
    return forCaller(p, this.prepareUpload.execute({
      type: 'PrepareUpload',
      data: {
        account_id: p.accountId,
        connection_id: p.connectionId,
        name: body.name,
        mime: body.mime,
        size: body.size,
        checksum: body.checksum,
        idempotency_key: body.idempotency_key,
      },
      metadata: { now: this.clock.now() },
    }));
  }

  @Get(':id')
  @RequireScope('read')
  @Operation('assets.upload.get', 'Read an upload')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.getUpload.execute({ account_id: p.accountId, upload_id: id });
  }

  /** Authenticated only by the upload's X-Upload-Token (route parameter `id`). */
  @Put(':id/content')
  @HttpCode(200)
  @UploadTokenAuth()
  @Operation('assets.upload.content', 'Send the file bytes of a prepared upload')
  content(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    return rawBody(req, res, () =>
      forCaller(p, this.receiveContent.execute({
        type: 'ReceiveContent',
        data: {
          upload_id: id,
          account_id: p.accountId,
          token_upload_id: p.kind === 'upload_token' ? (p.uploadId ?? null) : null,
          body: req,
          content_type: req.headers['content-type'],
          content_length: contentLength(req),
        },
        metadata: { now: this.clock.now() },
      })),
    );
  }

  @Post(':id/complete')
  @HttpCode(200)
  @RequireScope('create')
  @Operation('assets.upload.complete', 'Complete an upload: register its asset')
  complete(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown) {
    if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length > 0)) {
      throw new AppError('VALIDATION_ERROR', 'body: must be an empty JSON object');
    }
    return forCaller(p, this.completeUpload.execute({ type: 'CompleteUpload', data: { account_id: p.accountId, upload_id: id }, metadata: { now: this.clock.now() } }));
  }
}
