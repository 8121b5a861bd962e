// The site's languages (public.md §3): the locales and their negotiation, the catalogues, the
// formatting of numbers per language. Kernel: no Next, no database; client-safe but for the
// catalogues' weight.
export * from "@/lib/i18n/locales";
export * from "@/lib/i18n/format";
export { CATALOGUES, CLIENT_NAMESPACES, clientMessages, MANAGE_CLIENT_NAMESPACES, messagesOf, translator, type Messages } from "@/lib/i18n/messages";
