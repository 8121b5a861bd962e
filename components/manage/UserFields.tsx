import { useTranslations } from "next-intl";
import { CheckboxField, TextField } from "@/components/manage/Form";

/** The fields of a user on the users pages (management.md §2): never a password. */
export default function UserFields() {
  const t = useTranslations("manageFields");
  return (
    <>
      <div className="form-grid">
        <TextField name="username" label={t("username")} required maxLength={150} help={t("usernameHelp")} />
        <TextField name="email" label={t("email")} type="email" maxLength={254} help={t("emailHelp")} />
        <TextField name="first_name" label={t("firstName")} maxLength={150} />
        <TextField name="last_name" label={t("lastName")} maxLength={150} />
      </div>
      <CheckboxField name="is_active" label={t("active")} help={t("activeHelp")} />
      <CheckboxField name="can_add_stations" label={t("mayAddStations")} />
      <CheckboxField name="is_superuser" label={t("superuser")} help={t("superuserHelp")} />
    </>
  );
}
