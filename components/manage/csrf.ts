/** The csrftoken cookie, created when the browser has none yet (the API compares it with the X-CSRFToken header). */
export function csrfToken(): string {
  const found = document.cookie.split(";").map((c) => c.trim()).find((c) => c.startsWith("csrftoken="));
  if (found) return decodeURIComponent(found.slice("csrftoken=".length));
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const token = Array.from(bytes, (b) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[b % 62]).join("");
  document.cookie = `csrftoken=${token}; Path=/; Max-Age=31536000; SameSite=Lax${location.protocol === "https:" ? "; Secure" : ""}`;
  return token;
}
