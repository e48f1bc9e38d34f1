import { FormEvent, useCallback, useEffect, useId, useState } from 'react';
import { CreatedInvitation, Invitation, Member, Role } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { SsoSettings } from '../components/sso-settings';
import { textField } from '../logic/form-fields';
import { useClient } from '../session-context';

const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

/**
 * The workspace's members and invitations. What a caller may change is the service's rule (403 naming the
 * permission); the page shows the refusal as it comes. Invitations need `members:manage`: without it the
 * section says so instead of failing.
 */
export function MembersPage() {
  const client = useClient();
  const id = useId();
  const [members, setMembers] = useState<Member[]>([]);
  const [invitations, setInvitations] = useState<Invitation[] | null>(null);
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    client
      .json<{ data: Member[] }>('/v1/workspace/members')
      .then((answer) => setMembers(answer.data))
      .catch((caught: Error) => setError(caught.message));
    client
      .json<{ data: Invitation[] }>('/v1/workspace/invitations')
      .then((answer) => setInvitations(answer.data))
      .catch(() => setInvitations(null));
  }, [client]);
  useEffect(load, [load]);

  const act = async (work: () => Promise<unknown>) => {
    try {
      await work();
      setError(null);
      load();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  const invite = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    await act(async () => {
      const answer = await client.json<{ data: CreatedInvitation }>('/v1/workspace/invitations', {
        method: 'POST',
        body: { email: textField(data, 'email').trim(), role: textField(data, 'role') },
      });
      setCreated(answer.data);
      form.reset();
    });
  };

  return (
    <>
      <h1>Members</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <section className="card" aria-labelledby={`${id}-members`}>
        <h2 id={`${id}-members`}>Members</h2>
        <ul className="job-list">
          {members.map((member) => (
            <li key={member.id}>
              <strong>{member.email}</strong>
              <span className="muted">joined {new Date(member.joinedAt).toLocaleDateString()}</span>
              <span className="toolbar">
                <select
                  aria-label={`Role of ${member.email}`}
                  value={member.role}
                  onChange={(event) =>
                    void act(() =>
                      client.json(`/v1/workspace/members/${member.id}`, {
                        method: 'PATCH',
                        body: { role: event.target.value },
                      }),
                    )
                  }
                >
                  {ROLES.map((role) => (
                    <option key={role} value={role}>
                      {role}
                    </option>
                  ))}
                </select>
                <button
                  type="button"
                  className="danger"
                  onClick={() => {
                    if (!window.confirm(`Remove ${member.email} from the workspace?`)) return;
                    void act(() => client.json(`/v1/workspace/members/${member.id}`, { method: 'DELETE' }));
                  }}
                >
                  Remove {member.email}
                </button>
              </span>
            </li>
          ))}
        </ul>
      </section>
      <section className="card stack" aria-labelledby={`${id}-invitations`}>
        <h2 id={`${id}-invitations`}>Invitations</h2>
        {invitations === null ? (
          <p className="muted">Inviting members needs an admin or owner.</p>
        ) : (
          <>
            <form className="stack" onSubmit={(event) => void invite(event)} aria-label="Invite a member">
              <label htmlFor={`${id}-email`}>Email</label>
              <input id={`${id}-email`} name="email" type="email" required />
              <label htmlFor={`${id}-role`}>Role</label>
              <select id={`${id}-role`} name="role" defaultValue="member">
                {ROLES.map((role) => (
                  <option key={role} value={role}>
                    {role}
                  </option>
                ))}
              </select>
              <div className="toolbar">
                <button type="submit" className="primary">
                  Invite
                </button>
              </div>
            </form>
            {created && (
              <div role="status" className="secret">
                <p>
                  Invitation for {created.email} ({created.role}). Hand over this token; it is shown only now
                  and works once, for 7 days:
                </p>
                <code aria-label="Invitation token">{created.token}</code>
                <CopyButton text={created.token} label="Copy the token" />
              </div>
            )}
            <ul className="job-list">
              {invitations.map((invitation) => (
                <li key={invitation.id}>
                  <strong>{invitation.email}</strong>
                  <span className="muted">
                    {invitation.role} · {invitation.status}
                  </span>
                  {invitation.status === 'pending' && (
                    <span className="toolbar">
                      <button
                        type="button"
                        onClick={() =>
                          void act(async () => {
                            const answer = await client.json<{ data: CreatedInvitation }>(
                              `/v1/workspace/invitations/${invitation.id}/resend`,
                              { method: 'POST' },
                            );
                            setCreated(answer.data);
                          })
                        }
                      >
                        Resend to {invitation.email}
                      </button>
                      <button
                        type="button"
                        className="danger"
                        onClick={() =>
                          void act(() =>
                            client.json(`/v1/workspace/invitations/${invitation.id}`, { method: 'DELETE' }),
                          )
                        }
                      >
                        Revoke {invitation.email}
                      </button>
                    </span>
                  )}
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <SsoSettings />
    </>
  );
}
