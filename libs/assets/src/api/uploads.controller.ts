import { Body, Controller, Get, HttpCode, Param, Post, Put, Req, Res } from '@nestjs/common';
import { Operation } from './operation';
import type { Request, Response } from 'express';
import { AppError, CurrentPrincipal, OpenApiOperations, type Principal, RequireScope, UploadTokenAuth } from '@gensvc/shared';
import { AssetsService } from '../application/list-assets/list-assets.handler';
import { ImportService } from '../application/import-asset/import-asset.handler';
import { UploadsService } from '../application/receive-content/receive-content.handler';
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

@Controller('v1/uploads')
@OpenApiOperations(UPLOADS_OPENAPI)
export class UploadsController {
  constructor(
    private readonly uploads: UploadsService,
    private readonly assets: AssetsService,
    private readonly imports: ImportService,
  ) {}

  /** Direct upload: raw bytes, Content-Type and X-Filename; 201 with the asset. */
  @Post()
  @HttpCode(201)
  @RequireScope('create')
  @Operation('assets.upload', 'Upload a file directly (raw body)')
  direct(@CurrentPrincipal() p: Principal, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    return rawBody(req, res, () =>
      this.assets.directUpload(p.accountId, {
        body: req,
        contentType: req.headers['content-type'],
        contentLength: contentLength(req),
        fileName: req.headers['x-filename'],
      }),
    );
  }

  @Post('import')
  @HttpCode(201)
  @RequireScope('create')
  @Operation('assets.import', 'Import a file from a public HTTPS address')
  import(@CurrentPrincipal() p: Principal, @Body() body: ImportUploadDto) {
    return this.imports.import(p.accountId, body);
  }

  @Post('prepare')
  @HttpCode(200)
  @RequireScope('create')
  @Operation('assets.upload.prepare', 'Prepare an upload')
  prepare(@CurrentPrincipal() p: Principal, @Body() body: PrepareUploadDto) {
    return this.uploads.prepare(p, body);
  }

  @Get(':id')
  @RequireScope('read')
  @Operation('assets.upload.get', 'Read an upload')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.uploads.get(p.accountId, id);
  }

  /** Authenticated only by the upload's X-Upload-Token (route parameter `id`). */
  @Put(':id/content')
  @HttpCode(200)
  @UploadTokenAuth()
  @Operation('assets.upload.content', 'Send the file bytes of a prepared upload')
  content(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    return rawBody(req, res, () => this.uploads.receive(p, id, { body: req, contentType: req.headers['content-type'], contentLength: contentLength(req) }));
  }

  @Post(':id/complete')
  @HttpCode(200)
  @RequireScope('create')
  @Operation('assets.upload.complete', 'Complete an upload: register its asset')
  complete(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: unknown) {
    if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length > 0)) {
      throw new AppError('VALIDATION_ERROR', 'body: must be an empty JSON object');
    }
    return this.uploads.complete(p.accountId, id);
  }
}
