import { AcceptInvitationDto } from '../members/members.dto';
import {
  Body,
  CanActivate,
  Controller,
  HttpCode,
  Injectable,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { ProblemException } from '../../common/problem/problem.exception';
import { DashboardSessionConfig } from './dashboard-session.config';
import { Public } from '../../common/principal/public.decorator';
import { SessionCookies } from './session-cookies';
import { LoginDto, SignupDto } from './session.dto';
import { IssuedSession, SessionService } from './session.service';
import type { Schema } from '../../openapi/contract-types';

/** Runs before body validation, so with sign-up off the route answers 404 whatever is sent. */
@Injectable()
export class SignupEnabledGuard implements CanActivate {
  constructor(private readonly config: DashboardSessionConfig) {}

  canActivate(): boolean {
    if (!this.config.ALLOW_SIGNUP) {
      throw new ProblemException('not-found', 'Self sign-up is not enabled on this service.');
    }
    return true;
  }
}

/** Dashboard sign-in. Public: these operations are how a browser gets a credential. */
@Public()
@Controller('v1/auth')
export class SessionController {
  constructor(
    private readonly sessions: SessionService,
    private readonly cookies: SessionCookies,
  ) {}

  @Post('login')
  @HttpCode(200)
  async login(
    @Body() body: LoginDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Schema<'SessionResponse'>> {
    const signedIn = await this.sessions.login(body.email, body.password, {
      ip: request.ip ?? 'unknown',
      deviceToken: this.cookies.deviceToken(request),
    });
    this.cookies.setDevice(response, signedIn.deviceToken);
    return this.answer(response, signedIn);
  }

  @Post('signup')
  @UseGuards(SignupEnabledGuard)
  async signup(
    @Body() body: SignupDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Schema<'SessionResponse'>> {
    const signedUp = await this.sessions.signup(body, request.ip ?? 'unknown');
    this.cookies.setDevice(response, signedUp.deviceToken);
    return this.answer(response, signedUp);
  }

  /** Joins a workspace with an invitation's token: signs in (or signs up) and answers as the sign-in does. */
  @Post('invitations/accept')
  @HttpCode(200)
  async acceptInvitation(
    @Body() body: AcceptInvitationDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Schema<'SessionResponse'>> {
    const joined = await this.sessions.acceptInvitation(body, {
      ip: request.ip ?? 'unknown',
      deviceToken: this.cookies.deviceToken(request),
    });
    this.cookies.setDevice(response, joined.deviceToken);
    return this.answer(response, joined);
  }

  @Post('refresh')
  @HttpCode(200)
  async refresh(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Schema<'SessionResponse'>> {
    try {
      return this.answer(response, await this.sessions.refresh(this.cookies.refreshToken(request)));
    } catch (error) {
      // A refused refresh token is dead for good: the browser should stop sending it.
      if (error instanceof ProblemException) this.cookies.clear(response);
      throw error;
    }
  }

  @Post('logout')
  @HttpCode(204)
  async logout(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    await this.sessions.logout(this.cookies.refreshToken(request));
    this.cookies.clear(response);
  }

  private answer(response: Response, issued: IssuedSession): Schema<'SessionResponse'> {
    this.cookies.set(response, { accessToken: issued.view.accessToken, refreshToken: issued.refreshToken });
    response.setHeader('Cache-Control', 'no-store');
    return { data: issued.view };
  }
}
