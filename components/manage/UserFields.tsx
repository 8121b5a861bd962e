import { CheckboxField, TextField } from "@/components/manage/Form";

/** The fields of a user on the users pages (management.md §2): never a password. */
export default function UserFields() {
  return (
    <>
      <div className="form-grid">
        <TextField name="username" label="Username" required maxLength={150} help="Letters, digits and @ . + - _ only." />
        <TextField name="email" label="E-mail" type="email" maxLength={254} help="Where password-reset links are sent." />
        <TextField name="first_name" label="First name" maxLength={150} />
        <TextField name="last_name" label="Last name" maxLength={150} />
      </div>
      <CheckboxField name="is_active" label="Active" help="Inactive users cannot log in; their API tokens stop working." />
      <CheckboxField name="can_add_stations" label="May add stations" />
      <CheckboxField name="is_superuser" label="Superuser" help="May do everything, including managing lookups and users." />
    </>
  );
}
