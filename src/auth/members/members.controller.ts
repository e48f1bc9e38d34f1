import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ResourceIdPipe } from '../../common/http/resource-id.pipe';
import { CurrentPrincipal } from '../../common/principal/current-principal.decorator';
import type { Principal } from '../../common/principal/principal';
import { RequirePermission } from '../../common/principal/require-permission.decorator';
import { SessionOnly } from '../../common/principal/session-only.decorator';
import { ProblemException } from '../../common/problem/problem.exception';
import type { ResponseOf } from '../../openapi/contract-types';
import { CreateInvitationDto, UpdateMemberDto } from './members.dto';
import { MembersService } from './members.service';

/** The workspace's members and invitations (the rules are MembersService's). */
@Controller('v1/workspace')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @RequirePermission('account:read')
  @Get('members')
  async list(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'listMembers'>> {
    return { data: await this.members.list(principal.workspaceId) };
  }

  @RequirePermission('account:read')
  @Get('members/:id')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<ResponseOf<'getMember'>> {
    return { data: await this.members.get(principal.workspaceId, id) };
  }

  @RequirePermission('members:manage')
  @Patch('members/:id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
    @Body() body: UpdateMemberDto,
  ): Promise<ResponseOf<'updateMember'>> {
    return { data: await this.members.changeRole(principal, id, body.role) };
  }

  @RequirePermission('members:manage')
  @Delete('members/:id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<void> {
    await this.members.remove(principal, id);
  }

  /** Leaves the workspace: any signed-in member, except its last owner. */
  @RequirePermission('authenticated')
  @SessionOnly()
  @Delete('membership')
  @HttpCode(204)
  async leave(@CurrentPrincipal() principal: Principal): Promise<void> {
    if (principal.userId === null)
      throw new ProblemException('forbidden', 'Only a signed-in member can leave.');
    await this.members.remove(principal, principal.userId);
  }

  @RequirePermission('members:manage')
  @Get('invitations')
  async invitations(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'listInvitations'>> {
    return { data: await this.members.listInvitations(principal.workspaceId) };
  }

  @RequirePermission('members:manage')
  @Post('invitations')
  async invite(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateInvitationDto,
  ): Promise<ResponseOf<'createInvitation', 201>> {
    return { data: await this.members.invite(principal, body.email, body.role) };
  }

  @RequirePermission('members:manage')
  @Delete('invitations/:id')
  @HttpCode(204)
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<void> {
    await this.members.revokeInvitation(principal, id);
  }

  @RequirePermission('members:manage')
  @Post('invitations/:id/resend')
  @HttpCode(200)
  async resend(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<ResponseOf<'resendInvitation'>> {
    return { data: await this.members.resendInvitation(principal, id) };
  }
}

/** The signed-in user's workspaces, and switching the active one (the profile's `directory`). */
@SessionOnly()
@Controller('v1/workspaces')
export class WorkspacesController {
  constructor(private readonly members: MembersService) {}

  @RequirePermission('authenticated')
  @Get()
  async list(@CurrentPrincipal() principal: Principal): Promise<ResponseOf<'listWorkspaces'>> {
    return { data: await this.members.memberships(principal.userId!, principal.workspaceId) };
  }

  @RequirePermission('authenticated')
  @Post(':id/activate')
  @HttpCode(200)
  async activate(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ResourceIdPipe) id: string,
  ): Promise<ResponseOf<'activateWorkspace'>> {
    return { data: await this.members.switchTo(principal, id) };
  }
}
