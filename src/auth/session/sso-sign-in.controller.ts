import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isUuid } from '../../common/http/resource-id.pipe';
import { Public } from '../../common/principal/public.decorator';
import { ProblemException } from '../../common/problem/problem.exception';
import { SsoService, SsoSignInRefused } from '../sso/sso.service';
import { SessionCookies } from './session-cookies';
import { SessionService } from './session.service';

/** Where the dashboard lands after a sign-in through SSO, or with `?sso_error=<reason>` after a refusal. */
const DASHBOARD = '/app/';

/** The browser's sign-in through a workspace's OpenID provider. Public: this is how a browser gets a credential. */
@Public()
@Controller('v1/auth/sso')
export class SsoSignInController {
  constructor(
    private readonly sso: SsoService,
    private readonly sessions: SessionService,
    private readonly cookies: SessionCookies,
  ) {}

  /** Sends the browser to the workspace's provider, with this login's state sealed in its `stt_sso` cookie. */
  @Get('start')
  async start(@Query('workspace') workspace: unknown, @Res() response: Response): Promise<void> {
    if (typeof workspace !== 'string' || !isUuid(workspace)) {
      throw ProblemException.field('workspace', 'workspace must be the id (a UUID) of a workspace');
    }
    const { redirectTo, stateCookie } = await this.sso.start(workspace);
    this.cookies.setSsoState(response, stateCookie);
    response.setHeader('Cache-Control', 'no-store');
    redirect(response, 302, redirectTo);
  }

  /**
   * The provider sends the browser back here. Signed in: the session cookies are set and the browser goes to
   * the dashboard; refused: the dashboard with `?sso_error=<reason>` (and the refusal is audited).
   */
  @Get('callback')
  async callback(@Req() request: Request, @Res() response: Response): Promise<void> {
    const query = request.originalUrl.includes('?')
      ? request.originalUrl.slice(request.originalUrl.indexOf('?') + 1)
      : '';
    const stateCookie = this.cookies.ssoState(request);
    this.cookies.clearSsoState(response);
    response.setHeader('Cache-Control', 'no-store');
    try {
      const person = await this.sso.complete(query, stateCookie);
      const signedIn = await this.sessions.openSsoSession(person);
      this.cookies.setDevice(response, signedIn.deviceToken);
      this.cookies.set(response, {
        accessToken: signedIn.view.accessToken,
        refreshToken: signedIn.refreshToken,
      });
      redirect(response, 303, DASHBOARD);
    } catch (error) {
      if (!(error instanceof SsoSignInRefused)) throw error;
      redirect(response, 303, `${DASHBOARD}?sso_error=${error.reason}`);
    }
  }
}

/** A redirect with no body (Express's `redirect` would write one, which the contract does not have). */
function redirect(response: Response, status: 302 | 303, location: string): void {
  response.status(status).setHeader('Location', location);
  response.end();
}
