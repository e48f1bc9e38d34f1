import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../common/principal/public.decorator';
import type { ResponseOf } from '../openapi/contract-types';
import { LANGUAGE_COUNT, LANGUAGES } from './languages';

@Controller('v1/languages')
export class LanguagesController {
  @Public()
  @Get()
  @Header('Cache-Control', 'public, max-age=86400, stale-while-revalidate=604800')
  list(): ResponseOf<'listLanguages'> {
    return { data: LANGUAGES, count: LANGUAGE_COUNT };
  }
}
