"use client";

import { stylesheetLeftByServer } from "@/lib/site/stylesheet-slot";

const ID = "site-stylesheet";

/**
 * The site's stylesheet inline in the head (lib/site/stylesheet.ts says why inline). A client
 * component, so that its 24 KB are not sent twice: a server component's text would also travel
 * in the page's RSC payload, a quarter of the group page, parsed before the first frame. On the
 * server the text is what the layout left in the slot; in the browser, the element's own text
 * (also when React re-creates the head after a hydration error).
 */
export default function InlineStylesheet() {
  const css = typeof document === "undefined" ? stylesheetLeftByServer() : (document.getElementById(ID)?.textContent ?? "");
  return <style id={ID} dangerouslySetInnerHTML={{ __html: css }} />;
}
