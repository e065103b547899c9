import { Controller, Delete, Get, Head, HttpCode, Param, Query, Req, Res } from '@nestjs/common';
import { Operation } from './operation';
import type { Request, Response } from 'express';
import { CurrentPrincipal, OpenApiOperations, type Principal, Public, RequireScope } from '@gensvc/shared';
import { AssetsService } from '../application/list-assets/list-assets.handler';
import { FileServer, type FileResponse } from '../application/serve-file/serve-file.handler';
import { ASSETS_OPENAPI } from './assets.openapi';

@Controller('v1/assets')
@OpenApiOperations(ASSETS_OPENAPI)
export class AssetsController {
  constructor(
    private readonly assets: AssetsService,
    private readonly files: FileServer,
  ) {}

  @Get()
  @RequireScope('read')
  @Operation('assets.list', "List the caller's assets, newest first, with fresh signed links")
  list(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    return this.assets.list(p.accountId, query);
  }

  @Get(':id')
  @RequireScope('read')
  @Operation('assets.get', 'Read an asset with fresh signed links')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.assets.get(p.accountId, id);
  }

  @Delete(':id')
  @HttpCode(200)
  @RequireScope('create')
  @Operation('assets.delete', 'Delete an asset')
  delete(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.assets.delete(p.accountId, id);
  }

  /** The signed link (no account credential): preview or download, with byte ranges. */
  @Get(':id/content')
  @Public()
  @Operation('assets.file', 'Read the file through a signed link')
  async file(@Param('id') id: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response) {
    send(res, await this.files.serve(id, query, headersOf(req, 'GET')));
  }

  @Head(':id/content')
  @Public()
  @Operation('assets.file.head', 'Headers of the file behind a signed link')
  async fileHead(@Param('id') id: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response) {
    send(res, await this.files.serve(id, query, headersOf(req, 'HEAD')));
  }
}

function headersOf(req: Request, method: 'GET' | 'HEAD') {
  return { method, range: req.headers.range, ifRange: req.header('if-range'), ifNoneMatch: req.header('if-none-match') };
}

function send(res: Response, file: FileResponse): void {
  res.status(file.status);
  for (const [k, v] of Object.entries(file.headers)) res.setHeader(k, v);
  if (!file.body) {
    res.end();
    return;
  }
  const body = file.body;
  body.on('error', () => res.destroy());
  res.on('close', () => body.destroy());
  body.pipe(res);
}
