import { Controller, Delete, Get, Head, HttpCode, Param, Query, Req, Res } from '@nestjs/common';
import { Operation } from './operation';
import type { Request, Response } from 'express';
import { Clock } from '@gensvc/kernel';
import { CurrentPrincipal, OpenApiOperations, type Principal, Public, RequireScope } from '@gensvc/http';
import { DeleteAssetHandler } from '../application/delete-asset/delete-asset.handler';
import { GetAssetHandler } from '../application/get-asset/get-asset.handler';
import { ListAssetsHandler } from '../application/list-assets/list-assets.handler';
import { ServeFileHandler, type FileResponse, type ServeFileQuery } from '../application/serve-file/serve-file.handler';
import { ASSETS_OPENAPI } from './assets.openapi';

@Controller('v1/assets')
@OpenApiOperations(ASSETS_OPENAPI)
export class AssetsController {
  constructor(
    private readonly listAssets: ListAssetsHandler,
    private readonly getAsset: GetAssetHandler,
    private readonly deleteAsset: DeleteAssetHandler,
    private readonly serveFile: ServeFileHandler,
    private readonly clock: Clock,
  ) {}

  @Get()
  @RequireScope('read')
  @Operation('assets.list', "List the caller's assets, newest first, with fresh signed links")
  list(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    return this.listAssets.execute({ account_id: p.accountId, params: query });
  }

  @Get(':id')
  @RequireScope('read')
  @Operation('assets.get', 'Read an asset with fresh signed links')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.getAsset.execute({ account_id: p.accountId, asset_id: id });
  }

  @Delete(':id')
  @HttpCode(200)
  @RequireScope('create')
  @Operation('assets.delete', 'Delete an asset')
  delete(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.deleteAsset.execute({ type: 'DeleteAsset', data: { account_id: p.accountId, asset_id: id }, metadata: { now: this.clock.now() } });
  }

  /** The signed link (no account credential): preview or download, with byte ranges. */
  @Get(':id/content')
  @Public()
  @Operation('assets.file', 'Read the file through a signed link')
  async file(@Param('id') id: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response) {
    send(res, await this.serveFile.execute(fileQuery(id, query, req, 'GET')));
  }

  @Head(':id/content')
  @Public()
  @Operation('assets.file.head', 'Headers of the file behind a signed link')
  async fileHead(@Param('id') id: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response) {
    send(res, await this.serveFile.execute(fileQuery(id, query, req, 'HEAD')));
  }
}

function fileQuery(id: string, link: Record<string, unknown>, req: Request, method: 'GET' | 'HEAD'): ServeFileQuery {
  return { asset_id: id, link, method, range: req.headers.range, if_range: req.header('if-range'), if_none_match: req.header('if-none-match') };
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
