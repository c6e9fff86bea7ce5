import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { DataTable } from '../components/data-table.js';
import { Field } from '../components/field.js';
import { formatTimestamp } from '../utils/format.js';
import { formText, unknownIntent, refusedForm } from '../utils/forms.server.js';
import { pageMeta } from '../utils/meta.js';
import { readIntentForm, requireAccount } from '../utils/session.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Team · Roomstage', 'The members of your Roomstage account, their roles, and invitations by e-mail.');

const ROLES = ['owner', 'admin', 'developer', 'billing', 'agent', 'viewer'] as const;
type Role = (typeof ROLES)[number];

const ROLE_HINTS: Record<Role, string> = {
  owner: 'everything, members included',
  admin: 'everything except owners',
  developer: 'keys, webhooks, staging settings, playground, ad products and campaigns',
  billing: 'checkout, payment method, auto top-up, notifications, ad funds',
  agent: 'claims, images, earnings and payouts',
  viewer: 'reads everything but the audit log',
};

const asRole = (value: string | undefined) => value as Role;

export async function loader({ context, request }: LoaderFunctionArgs) {
  const user = await requireAccount(context, request);
  const [current, team, security] = await Promise.all([
    context.trpc.teams.current(),
    context.trpc.teams.members(),
    context.trpc.settings.security(),
  ]);
  return { user, current, ...team, security };
}

export async function action({ context, request }: ActionFunctionArgs) {
  const { form, intent } = await readIntentForm(context, request);
  try {
    switch (intent) {
      case 'invite': {
        const invite = await context.trpc.teams.invite({
          email: formText(form, 'email')?.trim() ?? '',
          role: asRole(formText(form, 'role')),
        });
        return json(
          { intent, done: `Invitation sent to ${invite.email}: the link works for 7 days.` },
          { status: 201 },
        );
      }
      case 'revoke': {
        await context.trpc.teams.revokeInvite({ id: formText(form, 'id') ?? '' });
        return json({ intent, done: 'The invitation is revoked: its link no longer works.' });
      }
      case 'role': {
        const member = await context.trpc.teams.changeRole({
          user_id: formText(form, 'user_id') ?? '',
          role: asRole(formText(form, 'role')),
        });
        return json({ intent, done: `${member.email} is now ${member.role}.` });
      }
      case 'require-2fa': {
        const on = formText(form, 'require_2fa') === 'on';
        await context.trpc.settings.updateSecurity({ require_2fa: on });
        return json({
          intent,
          done: on
            ? 'Two-factor sign-in is now required: members without it are sent to set it up before they can work here.'
            : 'Two-factor sign-in is no longer required of the members.',
        });
      }
      case 'remove': {
        const { keys_revoked } = await context.trpc.teams.removeMember({
          user_id: formText(form, 'user_id') ?? '',
          revoke_keys: form.get('revoke_keys') === 'on' ? 'true' : 'false',
        });
        const revoked =
          keys_revoked > 0 ? ` ${keys_revoked} API key${keys_revoked === 1 ? '' : 's'} they created revoked.` : '';
        return json({
          intent,
          done: `${formText(form, 'email') ?? 'The member'} is removed from this account.${revoked}`,
        });
      }
      default:
        return unknownIntent();
    }
  } catch (error) {
    return refusedForm(context, error, intent, intent === 'invite' ? ['email', 'role'] : []);
  }
}

function RoleSelect({
  id,
  name,
  defaultValue,
  roles,
}: {
  id: string;
  name: string;
  defaultValue: Role;
  roles: Role[];
}) {
  return (
    <select id={id} name={name} className="input" defaultValue={defaultValue}>
      {roles.map((role) => (
        <option key={role} value={role}>
          {role}
        </option>
      ))}
    </select>
  );
}

export default function Team() {
  const { user, current, members, invites, security } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const submitting = navigation.state === 'submitting';
  const canManage = current.permissions.includes('manage_members');
  // Admins may not make or touch owners (the server refuses it too); the form offers what the role may do.
  const assignable: Role[] = current.role === 'owner' ? [...ROLES] : ROLES.filter((role) => role !== 'owner');
  const failure = result && 'formError' in result ? result : null;
  const done = result && 'done' in result ? result.done : null;

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Account</p>
        <h1>Team</h1>
        <p className="lead">
          Members of <strong>{current.name}</strong> and what each may do. You are <strong>{current.role}</strong> here.
        </p>
      </header>

      <div aria-live="polite" className="stack">
        {failure && failure.intent !== 'invite' ? <Alert tone="error">{failure.formError}</Alert> : null}
        {done ? <Alert tone="success">{done}</Alert> : null}
      </div>

      <section className="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <DataTable
          rows={members}
          columns={['E-mail', 'Role', 'Joined', ...(canManage ? [{ name: 'Actions', hidden: true }] : [])]}
          empty="No members."
        >
          {(member) => {
            const editable = canManage && (current.role === 'owner' || member.role !== 'owner');
            return (
              <tr key={member.user_id}>
                <td>
                  {member.email}
                  {member.user_id === user.id ? ' (you)' : ''}
                  {member.working_keys > 0 ? (
                    <span className="table-note">
                      {member.working_keys === 1
                        ? 'Created 1 API key that still works'
                        : `Created ${member.working_keys} API keys that still work`}
                    </span>
                  ) : null}
                </td>
                <td>
                  {editable ? (
                    <Form method="post" className="inline-form">
                      <input type="hidden" name="intent" value="role" />
                      <input type="hidden" name="user_id" value={member.user_id} />
                      <label htmlFor={`role-${member.user_id}`} className="visually-hidden">
                        Role of {member.email}
                      </label>
                      <RoleSelect
                        id={`role-${member.user_id}`}
                        name="role"
                        defaultValue={member.role}
                        roles={assignable.includes(member.role) ? assignable : [member.role, ...assignable]}
                      />
                      <button type="submit" className="button button--ghost button--small" disabled={submitting}>
                        Save role
                      </button>
                    </Form>
                  ) : (
                    member.role
                  )}
                </td>
                <td>{formatTimestamp(member.joined_at)}</td>
                {canManage ? (
                  <td>
                    {editable && member.user_id !== current.id ? (
                      <Form method="post">
                        <input type="hidden" name="intent" value="remove" />
                        <input type="hidden" name="user_id" value={member.user_id} />
                        <input type="hidden" name="email" value={member.email} />
                        {member.working_keys > 0 ? (
                          <label className="checkbox-row">
                            <input type="checkbox" name="revoke_keys" defaultChecked />
                            <span>
                              Also revoke their {member.working_keys} key{member.working_keys === 1 ? '' : 's'}
                              <span className="visually-hidden"> ({member.email})</span>
                            </span>
                          </label>
                        ) : null}
                        <button type="submit" className="button button--danger button--small" disabled={submitting}>
                          Remove<span className="visually-hidden"> {member.email}</span>
                        </button>
                      </Form>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            );
          }}
        </DataTable>
      </section>

      <section className="card" aria-labelledby="invites-title">
        <h2 id="invites-title">Open invitations</h2>
        <DataTable
          rows={invites}
          columns={['E-mail', 'Role', 'Expires', ...(canManage ? [{ name: 'Actions', hidden: true }] : [])]}
          empty="No open invitations."
        >
          {(invite) => (
            <tr key={invite.id}>
              <td>{invite.email}</td>
              <td>{invite.role}</td>
              <td>{formatTimestamp(invite.expires_at)}</td>
              {canManage ? (
                <td>
                  <Form method="post">
                    <input type="hidden" name="intent" value="revoke" />
                    <input type="hidden" name="id" value={invite.id} />
                    <button type="submit" className="button button--ghost button--small" disabled={submitting}>
                      Revoke<span className="visually-hidden"> the invitation of {invite.email}</span>
                    </button>
                  </Form>
                </td>
              ) : null}
            </tr>
          )}
        </DataTable>
      </section>

      <section className="card stack" aria-labelledby="require-2fa-title">
        <h2 id="require-2fa-title">Two-factor sign-in</h2>
        {security.require_2fa ? (
          <p>
            <strong>Required.</strong> A member without two-factor sign-in can reach only their own{' '}
            <Link to="/security">Security</Link> page here until they turn it on. API keys keep working.
          </p>
        ) : (
          <p>
            <strong>Not required.</strong> When it is, a member without two-factor sign-in can reach only their own
            Security page here until they turn it on. API keys keep working.
          </p>
        )}
        {canManage ? (
          <Form method="post">
            <input type="hidden" name="intent" value="require-2fa" />
            <input type="hidden" name="require_2fa" value={security.require_2fa ? 'off' : 'on'} />
            <button type="submit" className="button button--ghost" disabled={submitting}>
              {security.require_2fa ? 'Stop requiring two-factor sign-in' : 'Require two-factor sign-in'}
            </button>
          </Form>
        ) : null}
      </section>

      {canManage ? (
        <section className="card" aria-labelledby="invite-title">
          <h2 id="invite-title">Invite someone</h2>
          <Form method="post" className="stack" key={done && result?.intent === 'invite' ? done : 'invite'}>
            <input type="hidden" name="intent" value="invite" />
            {failure && failure.intent === 'invite' ? <Alert tone="error">{failure.formError}</Alert> : null}
            <Field
              label="E-mail address"
              name="email"
              type="email"
              required
              autoComplete="off"
              error={failure?.intent === 'invite' ? failure.fieldErrors.email : undefined}
            />
            <div className="field">
              <label htmlFor="field-role" className="field__label">
                Role
              </label>
              <RoleSelect id="field-role" name="role" defaultValue="developer" roles={assignable} />
              <ul className="field__hint">
                {assignable.map((role) => (
                  <li key={role}>
                    <strong>{role}</strong>: {ROLE_HINTS[role]}
                  </li>
                ))}
              </ul>
            </div>
            <button type="submit" className="button button--primary" disabled={submitting}>
              Send invitation
            </button>
          </Form>
        </section>
      ) : null}
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
