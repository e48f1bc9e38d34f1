import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { MembersController, WorkspacesController } from './members.controller';
import { MembersService } from './members.service';

/** Enterprise workspaces: members with roles, invitations, and the user's workspaces (issue 32). */
@Module({
  imports: [AuditModule],
  controllers: [MembersController, WorkspacesController],
  providers: [MembersService],
  exports: [MembersService],
})
export class MembersModule {}
