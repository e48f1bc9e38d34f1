import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../common/principal/public.decorator';
import { LANGUAGES } from './languages';

@Controller('v1/languages')
export class LanguagesController {
  @Public()
  @Get()
  @Header('Cache-Control', 'public, max-age=86400, stale-while-revalidate=604800')
  list(): { data: ReadonlyArray<{ code: string; name: string }>; count: number } {
    return { data: LANGUAGES, count: LANGUAGES.length };
  }
}
