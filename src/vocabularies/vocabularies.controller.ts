import { RequirePermission } from '../common/principal/require-permission.decorator';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { CurrentPrincipal } from '../common/principal/current-principal.decorator';
import type { Principal } from '../common/principal/principal';
import { ResourceIdPipe } from '../common/http/resource-id.pipe';
import { toVocabularyView, VocabulariesService } from './vocabularies.service';
import { CreateVocabularyDto, UpdateVocabularyDto } from './vocabulary.dto';
import type { ResponseOf } from '../openapi/contract-types';

@RequirePermission('vocabularies')
@Controller('v1/vocabularies')
export class VocabulariesController {
  constructor(private readonly vocabularies: VocabulariesService) {}

  @Get()
  async list(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'listVocabularies'>> {
    return { data: (await this.vocabularies.list(principal.workspaceId)).map(toVocabularyView) };
  }

  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateVocabularyDto,
  ): Promise<ResponseOf<'createVocabulary', 201>> {
    return { data: toVocabularyView(await this.vocabularies.create(principal.workspaceId, body)) };
  }

  @Get(':id')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<ResponseOf<'getVocabulary'>> {
    return { data: toVocabularyView(await this.vocabularies.get(principal.workspaceId, id)) };
  }

  @Put(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Body() body: UpdateVocabularyDto,
  ): Promise<ResponseOf<'updateVocabulary'>> {
    return { data: toVocabularyView(await this.vocabularies.update(principal.workspaceId, id, body)) };
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<void> {
    await this.vocabularies.delete(principal.workspaceId, id);
  }
}
