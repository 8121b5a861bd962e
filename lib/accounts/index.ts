// The face of lib/accounts: what the rest of the service may use of it (lint: scripts/check-layers.mjs).

export { attemptLogin, changePassword, isValidEmail, PASSWORDS_DIFFER, requestPasswordReset } from "./accounts";
export { emailListField, readPasswordChange, readProfile, readResetEmail, readUserAdminInput } from "./fields";
export { loginErrorCode, NOT_ACTIVATED, nextAuthOptions, sessionCookieName, SITE_AUTH_BASE, THROTTLED_PREFIX } from "./next-auth";
export { activate, type ActivationOutcome, readRegistration, register, type Registration, resendActivation, termsMarkdown } from "./registration";
export { createUser, createUserBy, searchUsers, sendPasswordReset, setLanguage, updateProfile, updateUserBy, type UserAdminData, userChoices, userForAdmin, USERNAME_MESSAGE, USERNAME_PATTERN, usernameProblem, usernames, type UserSummary } from "./users";

export { capability } from "./capability";
